package io.tablecast.server.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket test client built on Netty's {@link WebSocketClientHandshaker}: collects text
 * frames as strings and the close status as {@code "close:<code>"}.
 */
public final class WsTestClient implements AutoCloseable {

  public final Channel channel;
  private final LinkedBlockingQueue<String> texts = new LinkedBlockingQueue<>();

  private WsTestClient(EventLoopGroup group, URI uri) throws Exception {
    WebSocketClientHandshaker handshaker = WebSocketClientHandshakerFactory.newHandshaker(uri,
        WebSocketVersion.V13, null, false, new DefaultHttpHeaders(), 64 << 20);
    CompletableFuture<Void> done = new CompletableFuture<>();
    channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(65536),
                new WebSocketClientProtocolHandler(handshaker, false),
                new WebSocketFrameAggregator(64 << 20),
                new SimpleChannelInboundHandler<WebSocketFrame>() {
                  @Override
                  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                    if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                      done.complete(null);
                    }
                  }

                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame f) {
                    if (f instanceof TextWebSocketFrame t) {
                      texts.add(t.text());
                    } else if (f instanceof CloseWebSocketFrame c) {
                      texts.add("close:" + c.statusCode());
                    }
                  }

                  @Override
                  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    done.completeExceptionally(cause);
                    ctx.close();
                  }
                });
          }
        }).connect(uri.getHost(), uri.getPort()).sync().channel();
    done.get(5, TimeUnit.SECONDS);
  }

  public static WsTestClient connect(EventLoopGroup group, int port) throws Exception {
    return new WsTestClient(group, URI.create("ws://127.0.0.1:" + port + "/ws"));
  }

  public void send(Message m) {
    sendText(MessageCodec.encodeJson(m));
  }

  public void sendText(String text) {
    channel.writeAndFlush(new TextWebSocketFrame(text)).syncUninterruptibly();
  }

  /** The next text frame (or close marker), waiting up to 5 s. */
  public String nextText() throws InterruptedException {
    String t = texts.poll(5, TimeUnit.SECONDS);
    if (t == null) {
      throw new AssertionError("no WebSocket frame within 5 s");
    }
    return t;
  }

  /** The next message that is not a heartbeat (empty change_batch), as its JSON text. */
  public String nextNonHeartbeatText() throws InterruptedException {
    while (true) {
      String t = nextText();
      if (!(t.startsWith("{\"type\":\"change_batch\"") && t.contains("\"changes\":[]"))) {
        return t;
      }
    }
  }

  public Message next() throws InterruptedException {
    return MessageCodec.decodeJson(nextText());
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
