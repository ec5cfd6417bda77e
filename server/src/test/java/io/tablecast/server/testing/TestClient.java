package io.tablecast.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
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
import io.tablecast.protocol.netty.BinaryFraming;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The server tests' one hand-made client, over either transport: the binary protocol (TCP, or a
 * local channel into a hub harness) or a WebSocket. It sends what a test tells it to and keeps
 * every message it receives, in order; {@link #next()} gives them as messages on both transports,
 * {@link #nextText()} as JSON text (on a WebSocket the very text the server sent, so a test can
 * check the bytes of the JSON encoding; a close frame reads {@code "close:<status>"}).
 */
public final class TestClient implements AutoCloseable {
  private static final int MAX_FRAME_BYTES = 64 << 20;
  private static final long WAIT_SECONDS = 10;

  public final Channel channel;

  /** {@link Message}s (binary) or texts (WebSocket frames, {@code close:<status>}). */
  private final LinkedBlockingQueue<Object> received;

  private final boolean webSocket;

  private TestClient(Channel channel, LinkedBlockingQueue<Object> received, boolean webSocket) {
    this.channel = channel;
    this.received = received;
    this.webSocket = webSocket;
  }

  /** Connects over TCP with the binary protocol and sends the magic. */
  public static TestClient tcp(EventLoopGroup group, SocketAddress address)
      throws InterruptedException {
    LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    Channel ch =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(binary(queue))
            .connect(address)
            .sync()
            .channel();
    ch.writeAndFlush(Unpooled.wrappedBuffer(MessageCodec.MAGIC)).sync();
    return new TestClient(ch, queue, false);
  }

  /**
   * Connects with any channel type and the binary protocol, without the magic (local channels into
   * a hub).
   */
  public static TestClient connect(Bootstrap bootstrap, SocketAddress address)
      throws InterruptedException {
    LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    Channel ch = bootstrap.handler(binary(queue)).connect(address).sync().channel();
    return new TestClient(ch, queue, false);
  }

  /**
   * Connects with any channel type to a peer that writes JSON messages, each UTF-8 text behind a
   * four-byte length (a hub harness's JSON sessions, framed as a WebSocket's text frames would be);
   * {@link #next()} gives them decoded as a browser's client would read them.
   */
  public static TestClient connectJson(Bootstrap bootstrap, SocketAddress address)
      throws InterruptedException {
    LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    Channel ch =
        bootstrap
            .handler(
                new ChannelInitializer<>() {
                  @Override
                  protected void initChannel(Channel c) {
                    c.pipeline()
                        .addLast(
                            new LengthFieldBasedFrameDecoder(
                                MAX_FRAME_BYTES,
                                0,
                                MessageCodec.LENGTH_FIELD_BYTES,
                                0,
                                MessageCodec.LENGTH_FIELD_BYTES),
                            new SimpleChannelInboundHandler<ByteBuf>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, ByteBuf text) {
                                queue.add(text.toString(StandardCharsets.UTF_8));
                              }
                            });
                  }
                })
            .connect(address)
            .sync()
            .channel();
    return new TestClient(ch, queue, true);
  }

  /** Connects to {@code ws://127.0.0.1:port/ws} and completes the WebSocket handshake. */
  public static TestClient webSocket(EventLoopGroup group, int port) throws Exception {
    URI uri = URI.create("ws://127.0.0.1:" + port + "/ws");
    WebSocketClientHandshaker handshaker =
        WebSocketClientHandshakerFactory.newHandshaker(
            uri, WebSocketVersion.V13, null, false, new DefaultHttpHeaders(), MAX_FRAME_BYTES);
    LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    CompletableFuture<Void> handshaken = new CompletableFuture<>();
    Channel ch =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel c) {
                    c.pipeline()
                        .addLast(
                            new HttpClientCodec(),
                            new HttpObjectAggregator(65536),
                            new WebSocketClientProtocolHandler(handshaker, false),
                            new WebSocketFrameAggregator(MAX_FRAME_BYTES),
                            new SimpleChannelInboundHandler<WebSocketFrame>() {
                              @Override
                              public void userEventTriggered(
                                  ChannelHandlerContext ctx, Object evt) {
                                if (evt
                                    == WebSocketClientProtocolHandler.ClientHandshakeStateEvent
                                        .HANDSHAKE_COMPLETE) {
                                  handshaken.complete(null);
                                }
                              }

                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext ctx, WebSocketFrame f) {
                                if (f instanceof TextWebSocketFrame t) {
                                  queue.add(t.text());
                                } else if (f instanceof CloseWebSocketFrame close) {
                                  queue.add("close:" + close.statusCode());
                                }
                              }

                              @Override
                              public void exceptionCaught(
                                  ChannelHandlerContext ctx, Throwable cause) {
                                handshaken.completeExceptionally(cause);
                                ctx.close();
                              }
                            });
                  }
                })
            .connect(uri.getHost(), uri.getPort())
            .sync()
            .channel();
    handshaken.get(WAIT_SECONDS, TimeUnit.SECONDS);
    return new TestClient(ch, queue, true);
  }

  /**
   * A binary client that says hello, subscribes to {@code tables} and never reads a byte: a plain
   * socket with a tiny receive buffer, so that the server's writes to it soon stall. Close it when
   * done.
   */
  public static Socket stalled(InetSocketAddress server, String name, String... tables)
      throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(server);
    ByteBuf out = Unpooled.buffer();
    out.writeBytes(MessageCodec.MAGIC);
    MessageCodec.encodeFrame(
        new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null), out);
    MessageCodec.encodeFrame(Message.Subscribe.fresh(List.of(tables)), out);
    s.getOutputStream().write(ByteBufUtil.getBytes(out));
    out.release();
    return s;
  }

  private static ChannelInitializer<Channel> binary(LinkedBlockingQueue<Object> queue) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        BinaryFraming.addTo(ch.pipeline(), MAX_FRAME_BYTES);
        ch.pipeline()
            .addLast(
                new SimpleChannelInboundHandler<Message>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                    queue.add(msg);
                  }
                });
      }
    };
  }

  /** Sends a message: a binary frame, or its JSON text on a WebSocket. */
  public void send(Message m) {
    if (webSocket) {
      sendText(MessageCodec.encodeJson(m));
    } else {
      channel.writeAndFlush(m).syncUninterruptibly();
    }
  }

  /** Sends a text frame as is (WebSocket only), e.g. malformed JSON. */
  public void sendText(String text) {
    if (!webSocket) {
      throw new IllegalStateException("text frames are for WebSocket clients");
    }
    channel.writeAndFlush(new TextWebSocketFrame(text)).syncUninterruptibly();
  }

  /**
   * The next message, failing the test when none comes within 10 s or a close frame comes instead.
   */
  public Message next() throws InterruptedException {
    Object o = nextReceived();
    if (o instanceof Message m) {
      return m;
    }
    String text = (String) o;
    assertThat(text).as("a message, not a close frame").doesNotStartWith("close:");
    return MessageCodec.decodeJson(text);
  }

  @SuppressWarnings("unchecked")
  public <T extends Message> T next(Class<T> type) throws InterruptedException {
    Message m = next();
    assertThat(m).isInstanceOf(type);
    return (T) m;
  }

  /** The next message that is not an empty (heartbeat) batch nor a ping. */
  public Message nextNonHeartbeat() throws InterruptedException {
    while (true) {
      Message m = next();
      if (!isHeartbeat(m)) {
        return m;
      }
    }
  }

  /**
   * The next message as JSON text (on a WebSocket as sent; {@code close:<status>} for a close
   * frame).
   */
  public String nextText() throws InterruptedException {
    Object o = nextReceived();
    return o instanceof Message m ? MessageCodec.encodeJson(m) : (String) o;
  }

  /** {@link #nextText()}, past heartbeats (empty batches) and pings. */
  public String nextNonHeartbeatText() throws InterruptedException {
    while (true) {
      String text = nextText();
      if (text.startsWith("close:") || !isHeartbeat(MessageCodec.decodeJson(text))) {
        return text;
      }
    }
  }

  /** Every message received so far and not yet taken. */
  public List<Message> drain() {
    List<Object> out = new ArrayList<>();
    received.drainTo(out);
    List<Message> messages = new ArrayList<>(out.size());
    for (Object o : out) {
      messages.add(o instanceof String text ? MessageCodec.decodeJson(text) : (Message) o);
    }
    return messages;
  }

  /** The next message, or null when none comes within {@code timeout} of {@code unit}. */
  public Message poll(long timeout, TimeUnit unit) throws InterruptedException {
    Object o = received.poll(timeout, unit);
    return o == null || o instanceof Message ? (Message) o : MessageCodec.decodeJson((String) o);
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }

  private Object nextReceived() throws InterruptedException {
    Object o = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(o).as("a message within %d s", WAIT_SECONDS).isNotNull();
    return o;
  }

  private static boolean isHeartbeat(Message m) {
    return m instanceof Message.Ping || m instanceof Message.ChangeBatch b && b.changes().isEmpty();
  }
}
