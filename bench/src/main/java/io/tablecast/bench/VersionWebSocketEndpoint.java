package io.tablecast.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket endpoint of the bench on a free loopback port at {@link #PATH}, through which the
 * browser page of figure 1 sends its lines (one text message per task of the page: the lines of one
 * batch's changes, joined by newlines): the way out of the page with the least added delay, one
 * loopback hop with no process in between. Each line is handed to {@link LineFedSubject#accept} on
 * the endpoint's event loop, the moment its message is read.
 */
final class VersionWebSocketEndpoint implements AutoCloseable {
  static final String PATH = "/versions";

  private final EventLoopGroup loop;
  private final Channel serverChannel;

  private VersionWebSocketEndpoint(EventLoopGroup loop, Channel serverChannel) {
    this.loop = loop;
    this.serverChannel = serverChannel;
  }

  static VersionWebSocketEndpoint start(LineFedSubject subject) throws InterruptedException {
    EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      ServerBootstrap b =
          new ServerBootstrap()
              .group(loop)
              .channel(NioServerSocketChannel.class)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(
                              new HttpServerCodec(),
                              new HttpObjectAggregator(64 * 1024),
                              new WebSocketServerProtocolHandler(PATH),
                              new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                @Override
                                protected void channelRead0(
                                    ChannelHandlerContext ctx, TextWebSocketFrame frame) {
                                  long now = System.nanoTime();
                                  for (String line : frame.text().split("\n", -1)) {
                                    subject.accept(line, now);
                                  }
                                }
                              });
                    }
                  });
      return new VersionWebSocketEndpoint(loop, b.bind("127.0.0.1", 0).sync().channel());
    } catch (InterruptedException | RuntimeException e) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
      throw e;
    }
  }

  /** {@code ws://127.0.0.1:PORT/versions}. */
  String url() {
    return "ws://127.0.0.1:" + ((InetSocketAddress) serverChannel.localAddress()).getPort() + PATH;
  }

  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
