package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.netty.BinaryFraming;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A binary client over TLS: SslHandler, framing, a queue of messages and the first error. */
final class TlsBinaryClient implements AutoCloseable {
  final Channel channel;
  final LinkedBlockingQueue<Message> received = new LinkedBlockingQueue<>();
  final CompletableFuture<Throwable> failure = new CompletableFuture<>();
  final SslHandler ssl;

  /** A client context trusting {@code trusted}, presenting {@code chain} when not null. */
  static SslContext context(Path trusted, Path chain, Path key) throws Exception {
    SslContextBuilder b =
        SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trusted.toFile());
    if (chain != null) {
      b.keyManager(chain.toFile(), key.toFile());
    }
    return b.build();
  }

  TlsBinaryClient(EventLoopGroup group, SslContext ctx, int port) throws InterruptedException {
    ssl = ctx.newHandler(io.netty.buffer.ByteBufAllocator.DEFAULT, "localhost", port);
    channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast("tls", ssl);
                    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
                    ch.pipeline()
                        .addLast(
                            new SimpleChannelInboundHandler<Message>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext c, Message msg) {
                                received.add(msg);
                              }

                              @Override
                              public void exceptionCaught(
                                  ChannelHandlerContext c, Throwable cause) {
                                failure.complete(cause);
                                c.close();
                              }
                            });
                  }
                })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
    channel.write(
        Unpooled.wrappedBuffer(MessageCodec.MAGIC)); // held back until the handshake is done
    channel.writeAndFlush(
        new Message.Hello(Message.PROTOCOL_VERSION, "tls-test", null, null, null));
  }

  Message next() throws InterruptedException {
    Message m = received.poll(10, TimeUnit.SECONDS);
    assertThat(m).as("a message within 10 s").isNotNull();
    return m;
  }

  Message nextNonHeartbeat() throws InterruptedException {
    while (true) {
      Message m = next();
      if (!(m instanceof Message.ChangeBatch b && b.changes().isEmpty())
          && !(m instanceof Message.Ping)) {
        return m;
      }
    }
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
