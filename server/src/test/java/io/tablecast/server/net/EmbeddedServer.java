package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.HubGate;
import io.tablecast.server.hub.TestHubSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's real pipeline (protocol detector, binary or HTTP/WebSocket, session handler) in an
 * {@link EmbeddedChannel} whose every buffer comes from a {@link TrackingAllocator}: tests feed
 * bytes as a client would, read what the server wrote, and check after the disconnect that nothing
 * stayed referenced ({@link #closeAndAssertNothingLeaked}).
 */
final class EmbeddedServer {
  static final int MAX_FRAME = 4096;

  private final TestHub hub;
  private final TrackingAllocator alloc = new TrackingAllocator();
  final EmbeddedChannel ch;
  private int decoded;

  /**
   * A hub with no tables whose thread runs only while a connection settles ({@link HubGate}), so
   * that the hub's writes to the embedded channel never race the test's own use of it.
   */
  record TestHub(ChangeHub hub, HubGate gate) implements AutoCloseable {
    @Override
    public void close() {
      gate.close();
      hub.close();
    }
  }

  /** A connection to {@code hub}. */
  EmbeddedServer(TestHub hub) {
    this.hub = hub;
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub.hub(),
                Authenticator.allowAll(),
                new ClientSessionHandler.Settings("test-server", 1000, 10_000),
                MAX_FRAME));
    ch.config().setAllocator(alloc);
  }

  /** A hub with no tables, as the hostile-input tests use. */
  static TestHub emptyHub() {
    ChangeHub hub =
        new ChangeHub(TestHubSettings.of(java.time.Duration.ofHours(1), 10, 1 << 20, 64 << 20));
    hub.install(List.of(), java.util.Map.of());
    return new TestHub(hub, HubGate.shut(hub));
  }

  TrackingAllocator allocator() {
    return alloc;
  }

  /** Runs what the channel and the hub have queued, in order, until both are idle. */
  void settle() {
    ch.runPendingTasks();
    hub.gate().letRun(); // every task handed to the hub before it has run, the test waiting
    ch.runPendingTasks();
  }

  /** Writes the bytes as one read (from the tracked allocator) and settles. */
  void send(byte[]... parts) {
    ByteBuf in = alloc.buffer();
    for (byte[] p : parts) {
      in.writeBytes(p);
    }
    ch.writeInbound(in);
    settle();
  }

  /**
   * Counts the messages the transport's decoder hands to the session from now on (see {@link
   * #decodedMessages}); call once the session handler is in the pipeline.
   */
  void tapDecodedMessages() {
    ch.pipeline()
        .addBefore(
            "session",
            "tap",
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof Message) {
                  decoded++;
                }
                ctx.fireChannelRead(msg);
              }
            });
  }

  int decodedMessages() {
    return decoded;
  }

  // ---------------------------------------------------------------- binary

  static byte[] frame(Message m) {
    ByteBuf b = io.netty.buffer.Unpooled.buffer();
    MessageCodec.encodeFrame(m, b);
    return bytes(b);
  }

  static byte[] rawFrame(int typeCode, byte[] body) {
    ByteBuf b = io.netty.buffer.Unpooled.buffer();
    b.writeInt(1 + body.length).writeByte(typeCode).writeBytes(body);
    return bytes(b);
  }

  /** Reads and releases a buffer. */
  static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    b.release();
    return out;
  }

  /** The next frame the server wrote, decoded, or null. */
  Message readBinary() {
    ch.runPendingTasks();
    ByteBuf out = ch.readOutbound();
    if (out == null) {
      return null;
    }
    try {
      out.skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
      return MessageCodec.decodeFrameBody(out);
    } finally {
      out.release();
    }
  }

  /** Every frame the server wrote so far, decoded. */
  List<Message> readAllBinary() {
    List<Message> out = new ArrayList<>();
    Message m;
    while ((m = readBinary()) != null) {
      out.add(m);
    }
    return out;
  }

  // ---------------------------------------------------------------- WebSocket

  /** Upgrades the connection to a WebSocket session. */
  void upgrade() {
    String req =
        "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    send(req.getBytes(StandardCharsets.US_ASCII));
    StringBuilder response = new StringBuilder();
    ByteBuf out;
    while ((out = ch.readOutbound()) != null) {
      response.append(out.toString(StandardCharsets.US_ASCII));
      out.release();
    }
    assertThat(response.toString()).startsWith("HTTP/1.1 101");
  }

  /** The bytes a browser would send for these frames (masked). */
  static byte[] wsBytes(WebSocketFrame... frames) {
    EmbeddedChannel enc = new EmbeddedChannel(new WebSocket13FrameEncoder(true));
    ByteBuf all = io.netty.buffer.Unpooled.buffer();
    for (WebSocketFrame f : frames) {
      enc.writeOutbound(f);
      ByteBuf b;
      while ((b = enc.readOutbound()) != null) {
        all.writeBytes(b);
        b.release();
      }
    }
    enc.finishAndReleaseAll();
    return bytes(all);
  }

  void sendWs(WebSocketFrame... frames) {
    send(wsBytes(frames));
  }

  /** Frames the server wrote (decoded, unmasked); the caller releases them. */
  List<WebSocketFrame> readWs() {
    ch.runPendingTasks();
    EmbeddedChannel dec = new EmbeddedChannel(new WebSocket13FrameDecoder(false, false, 1 << 20));
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      dec.writeInbound(b);
    }
    List<WebSocketFrame> frames = new ArrayList<>();
    WebSocketFrame f;
    while ((f = dec.readInbound()) != null) {
      frames.add(f);
    }
    dec.finishAndReleaseAll();
    return frames;
  }

  static Message json(WebSocketFrame frame) {
    return MessageCodec.decodeJson(((TextWebSocketFrame) frame).text());
  }

  // ---------------------------------------------------------------- end

  /**
   * Disconnects, lets the session and the hub forget the connection, drops what the server wrote,
   * and fails naming the buffers that are still referenced.
   */
  void closeAndAssertNothingLeaked() {
    ch.close();
    settle();
    Object o;
    while ((o = ch.readOutbound()) != null) {
      ReferenceCountUtil.release(o);
    }
    while ((o = ch.readInbound()) != null) {
      ReferenceCountUtil.release(o);
    }
    assertThat(alloc.unreleased())
        .as("buffers still referenced after the connection closed")
        .isEmpty();
  }
}
