package io.tablecast.server.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The server's port while it starts (opening its source, waiting for NATS, loading its images), so
 * that the start can be watched: {@code GET /health} answers {@code 503} with {@code
 * {"status":"STARTING","reason":...}} saying what it does now (the snapshot's counts, waiting for
 * NATS: like DOWN's reasons, no table, address or cause, since anyone may ask; the log has them),
 * any other HTTP request a {@code 503} with the same text, and a binary client {@code
 * Error(SHUTTING_DOWN)} with it, after which the client reconnects as from any server that does not
 * serve. Closed just before the server binds the port for its clients.
 */
public final class StartingPort implements AutoCloseable {

  /** {@code /health}'s status while the server starts. */
  public static final String STARTING = "STARTING";

  private final EventLoopGroup loop;
  private final Channel serverChannel;
  private final ChannelGroup accepted;

  private StartingPort(EventLoopGroup loop, Channel serverChannel, ChannelGroup accepted) {
    this.loop = loop;
    this.serverChannel = serverChannel;
    this.accepted = accepted;
  }

  /**
   * Binds the configured address; {@code doing} says what the start does now.
   *
   * @throws IllegalStateException when the address cannot be bound (in use, not local)
   */
  @SuppressWarnings("FutureReturnValueIgnored") // a failed start is rethrown
  public static StartingPort bind(NetSettings config, String serverName, Supplier<String> doing)
      throws InterruptedException {
    EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      ServerCertificates tls =
          config.tls() == null ? null : ServerCertificates.loadQuietly(config.tls());
      Supplier<String> why = () -> "server " + serverName + " is starting: " + doing.get();
      ChannelGroup accepted = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
      ServerBootstrap b =
          new ServerBootstrap()
              .group(loop)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      accepted.add(ch);
                      if (tls != null) {
                        ch.pipeline()
                            .addLast(
                                "tls-detector",
                                new TlsDetector(
                                    tls::current,
                                    config.tls().allowPlaintext(),
                                    config.handshakeTimeout().toMillis()));
                      }
                      ch.pipeline().addLast("detector", detector(why, doing));
                    }
                  });
      ChannelFuture bound =
          b.bind(new InetSocketAddress(config.listen().host(), config.listen().port())).await();
      if (!bound.isSuccess()) {
        throw new IllegalStateException(
            "cannot listen on "
                + config.listen().host()
                + ":"
                + config.listen().port()
                + ": "
                + bound.cause().getMessage()
                + " (another process holds the port, or the address is not this machine's);"
                + " change listen.host or listen.port",
            bound.cause());
      }
      return new StartingPort(loop, bound.channel(), accepted);
    } catch (InterruptedException | RuntimeException e) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static ProtocolDetector detector(Supplier<String> why, Supplier<String> doing) {
    return new ProtocolDetector(
        new ProtocolDetector.Protocols() {
          @Override
          public void binary(ChannelPipeline pipeline) {
            Refusals.binary(
                pipeline,
                Message.Error.fatal(
                    ErrorCode.SHUTTING_DOWN, why.get() + "; reconnect later or to another server"));
          }

          @Override
          public void http(ChannelPipeline pipeline) {
            Refusals.http(pipeline, req -> answer(req, why, doing));
          }

          @Override
          public void other(ChannelHandlerContext ctx) {
            ProtocolDetector.rejectNotBinary(ctx);
          }
        });
  }

  /** {@code /health} in its JSON form, anything else the text of {@code why}. */
  private static Refusals.Answer answer(
      FullHttpRequest req, Supplier<String> why, Supplier<String> doing) {
    if (new QueryStringDecoder(req.uri()).path().equals("/health")) {
      return new Refusals.Answer(
          "application/json",
          MessageCodec.jsonMapper()
                  .createObjectNode()
                  .put("status", STARTING)
                  .put("reason", doing.get())
              + "\n");
    }
    return new Refusals.Answer("text/plain; charset=utf-8", why.get() + "\n");
  }

  /** The bound port (the one to bind again for the clients when the configuration said 0). */
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /**
   * Unbinds the port, closes every connection it accepted and stops the event loop. The loop's
   * shutdown alone now and then left a connection accepted at the moment of the unbinding open and
   * unanswered, with nothing left to close it: 21 of 14,249 probes in {@code StartingPortTest} hung
   * until their own timeout. So the loop first runs what was queued before the unbinding (a
   * connection's registration, which adds it to {@link #accepted}), then every accepted connection
   * is closed.
   */
  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly();
    loop.submit(() -> {}).awaitUninterruptibly();
    accepted.close().awaitUninterruptibly();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
