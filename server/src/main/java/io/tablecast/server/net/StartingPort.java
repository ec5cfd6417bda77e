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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The server's port while it starts (opening its source, waiting for NATS, loading its images), so
 * that the start can be watched: {@code GET /health} answers {@code 503} with {@code
 * {"status":"STARTING","reason":...}} saying what it does now (the snapshot's counts, waiting for
 * NATS: like DOWN's reasons, no table, address or cause, since anyone may ask; the log has them),
 * any other HTTP request a {@code 503} with the same text, and a binary client {@code
 * Error(SHUTTING_DOWN)} with it, after which the client reconnects as from any server that does not
 * serve. Once the images are loaded its listening socket is {@link #handOver handed over}, still
 * bound, to the port that serves the clients: the port is never free for a moment in between, where
 * another socket (an outgoing connection given it as its local port, on a busy machine) took it now
 * and then and failed the start with the port "in use".
 */
public final class StartingPort implements AutoCloseable {

  /** {@code /health}'s status while the server starts. */
  public static final String STARTING = "STARTING";

  private final EventLoopGroup loop;
  private final Channel serverChannel;
  private final ServerSocketChannel socket;
  private final ChannelGroup accepted;
  private boolean handedOver;

  private StartingPort(
      EventLoopGroup loop,
      Channel serverChannel,
      ServerSocketChannel socket,
      ChannelGroup accepted) {
    this.loop = loop;
    this.serverChannel = serverChannel;
    this.socket = socket;
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
      ServerSocketChannel socket = openSocket();
      ServerBootstrap b =
          new ServerBootstrap()
              .group(loop)
              .channelFactory(() -> new NioServerSocketChannel(socket))
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
        closeQuietly(socket);
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
      return new StartingPort(loop, bound.channel(), socket, accepted);
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
   * Stops answering "starting" and returns the listening socket, still bound, for {@link
   * NettyServer} to accept the clients on: every connection this port accepted is closed (as by
   * {@link #close}), one still waiting in the socket's backlog is accepted by the clients' port.
   * The caller owns the socket from here; {@link #close} does nothing more.
   */
  public ServerSocketChannel handOver() {
    serverChannel.deregister().awaitUninterruptibly();
    closeAcceptedAndStop();
    handedOver = true;
    return socket;
  }

  /**
   * Unbinds the port, closes every connection it accepted and stops the event loop; after {@link
   * #handOver} nothing: the socket is no longer this port's to close. The loop's shutdown alone now
   * and then left a connection accepted at the moment of the unbinding open and unanswered, with
   * nothing left to close it: 21 of 14,249 probes in {@code StartingPortTest} hung until their own
   * timeout. So the loop first runs what was queued before the unbinding (a connection's
   * registration, which adds it to {@link #accepted}), then every accepted connection is closed.
   */
  @Override
  public void close() {
    if (handedOver) {
      return;
    }
    serverChannel.close().awaitUninterruptibly();
    closeAcceptedAndStop();
  }

  private void closeAcceptedAndStop() {
    loop.submit(() -> {}).awaitUninterruptibly();
    accepted.close().awaitUninterruptibly();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }

  private static ServerSocketChannel openSocket() {
    try {
      return ServerSocketChannel.open();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a server socket", e);
    }
  }

  static void closeQuietly(ServerSocketChannel socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing bound to release
    }
  }
}
