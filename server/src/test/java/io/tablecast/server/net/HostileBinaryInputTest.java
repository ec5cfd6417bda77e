package io.tablecast.server.net;

import static io.tablecast.server.net.EmbeddedServer.bytes;
import static io.tablecast.server.net.EmbeddedServer.frame;
import static io.tablecast.server.net.EmbeddedServer.rawFrame;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.hub.HubGate;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile input on the binary encoding, one rule per test, in the server's real pipeline ({@link
 * EmbeddedServer}): every bad input gets an {@code error} frame and a closed connection, never an
 * exception escaping the pipeline, and no buffer stays referenced after the disconnect (checked
 * after every test). Rules covered elsewhere: malformed CBOR, oversized frame, message before
 * hello, second hello, server message from a client in {@link SessionHandshakeTest}; random
 * mutations of every message type in {@link DecoderMutationTest}.
 */
class HostileBinaryInputTest {

  private EmbeddedServer.TestHub hub;
  private EmbeddedServer server;

  @BeforeEach
  void setUp() {
    hub = EmbeddedServer.emptyHub();
    server = new EmbeddedServer(hub);
  }

  @AfterEach
  void tearDown() {
    try {
      server.closeAndAssertNothingLeaked();
    } finally {
      hub.close();
    }
  }

  private void hello() {
    server.send(
        MessageCodec.MAGIC,
        frame(new Message.Hello(Message.PROTOCOL_VERSION, "hostile", null, null, null)));
    assertThat(server.readBinary()).isInstanceOf(Message.Welcome.class);
  }

  private void expectFatal(ErrorCode code) {
    Message m = server.readBinary();
    assertThat(m).isInstanceOf(Message.Error.class);
    assertThat(((Message.Error) m).code()).isEqualTo(code);
    assertThat(((Message.Error) m).table()).isNull();
    server.settle();
    assertThat(server.ch.isOpen()).as("closed after the error").isFalse();
  }

  /** CBOR header of a text string of {@code n} bytes (n < 65536), then the bytes. */
  private static void cborText(ByteBuf b, String s) {
    byte[] t = s.getBytes(StandardCharsets.UTF_8);
    if (t.length < 24) {
      b.writeByte(0x60 | t.length);
    } else if (t.length < 256) {
      b.writeByte(0x78).writeByte(t.length);
    } else {
      b.writeByte(0x79).writeShort(t.length);
    }
    b.writeBytes(t);
  }

  /**
   * Syncs followed by a frame too long, in one read: the hub answers the syncs while the session
   * closes, and every answer is written or released. Many connections, as the hub's answers and the
   * close interleave differently from one to the next; a random mutation found this case first
   * (DecoderMutationTest, seed 5757071268751179962, case 297), where an answer written by the hub
   * thread beside the test's close of the embedded channel stayed referenced ({@link HubGate}).
   */
  @Test
  void syncsAnsweredWhileTheConnectionClosesLeakNothing() {
    ByteBuf in = Unpooled.buffer();
    for (int i = 1; i <= 8; i++) {
      in.writeBytes(frame(new Message.Sync(i)));
    }
    in.writeInt(1 << 30); // the length of a frame far beyond the limit
    byte[] input = bytes(in);
    for (int connection = 0; connection < 2_000; connection++) {
      EmbeddedServer other = new EmbeddedServer(hub);
      other.send(
          MessageCodec.MAGIC,
          frame(new Message.Hello(Message.PROTOCOL_VERSION, "hostile", null, null, null)));
      other.send(input);
      List<Message> written = other.readAllBinary();
      assertThat(written.get(0))
          .as("connection %d", connection)
          .isInstanceOf(Message.Welcome.class);
      assertThat(written.get(written.size() - 1))
          .as("connection %d", connection)
          .isInstanceOfSatisfying(
              Message.Error.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME));
      other.closeAndAssertNothingLeaked();
    }
  }

  @Test
  void negativeLengthPrefixIsBadFrame() {
    server.send(
        MessageCodec.MAGIC,
        new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 1, 2, 3});
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void zeroLengthFrameIsBadFrame() {
    server.send(MessageCodec.MAGIC, new byte[] {0, 0, 0, 0});
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void unknownTypeCodeIsBadFrame() {
    server.send(MessageCodec.MAGIC, rawFrame(0x7f, new byte[] {(byte) 0xbf, (byte) 0xff}));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void truncatedBodyIsBadFrame() {
    byte[] hello = frame(new Message.Hello(Message.PROTOCOL_VERSION, "x", null, null, null));
    byte[] cut = new byte[hello.length - 3];
    System.arraycopy(hello, 0, cut, 0, cut.length);
    // the length prefix is fixed to the truncated size: the body itself ends mid-map
    ByteBuf b = Unpooled.wrappedBuffer(cut);
    b.setInt(0, cut.length - 4);
    server.send(MessageCodec.MAGIC, bytes(b));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void truncatedFrameThenDisconnectLeaksNothing() {
    byte[] hello = frame(new Message.Hello(Message.PROTOCOL_VERSION, "x", null, null, null));
    byte[] cut = new byte[hello.length - 5]; // the prefix promises more than arrives
    System.arraycopy(hello, 0, cut, 0, cut.length);
    server.send(MessageCodec.MAGIC, cut);
    assertThat((Object) server.ch.readOutbound()).isNull();
    assertThat(server.ch.isOpen()).isTrue();
    // the frame decoder holds the half frame: the check below can see a buffer nobody released
    assertThat(server.allocator().unreleased())
        .as("the half frame, held by the frame decoder")
        .isNotEmpty();
    server.closeAndAssertNothingLeaked(); // released on close (tearDown checks again, harmlessly)
    assertThat(server.ch.isOpen()).isFalse();
  }

  @Test
  void numberWhereAStringIsExpectedIsBadFrame() {
    ByteBuf b = Unpooled.buffer().writeByte(0xbf);
    cborText(b, "protocolVersion");
    b.writeByte(0x01);
    cborText(b, "clientName");
    b.writeByte(0x19).writeShort(1234); // an integer, not a text
    b.writeByte(0xff);
    server.send(MessageCodec.MAGIC, rawFrame(1, bytes(b)));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void stringWhereANumberIsExpectedIsBadFrame() {
    ByteBuf b = Unpooled.buffer().writeByte(0xbf);
    cborText(b, "protocolVersion");
    cborText(b, "1");
    b.writeByte(0xff);
    server.send(MessageCodec.MAGIC, rawFrame(1, bytes(b)));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void deeplyNestedCborIsBadFrame() {
    hello();
    ByteBuf b = Unpooled.buffer().writeByte(0xbf);
    cborText(b, "tables");
    for (int i = 0; i < 1000; i++) {
      b.writeByte(0x81); // array of one element, 1000 deep
    }
    cborText(b, "t");
    cborText(b, "resumePosition");
    b.writeByte(0x20);
    b.writeByte(0xff);
    server.send(rawFrame(3, bytes(b)));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void hugeStringWithinTheFrameLimitIsHandledWithoutCrash() {
    hello();
    String name = "x".repeat(EmbeddedServer.MAX_FRAME - 100);
    server.send(frame(Message.Subscribe.fresh(List.of(name))));
    Message m = server.readBinary();
    assertThat(m).isInstanceOf(Message.Error.class);
    assertThat(((Message.Error) m).code()).isEqualTo(ErrorCode.UNKNOWN_TABLE); // not fatal
    assertThat(server.ch.isOpen()).isTrue();
  }

  @Test
  void cborStringLongerThanItsFrameIsBadFrame() {
    ByteBuf b = Unpooled.buffer().writeByte(0xbf);
    cborText(b, "clientName");
    b.writeByte(0x7a).writeInt(Integer.MAX_VALUE); // a text of 2 GiB, in a 30-byte frame
    b.writeBytes("abc".getBytes(StandardCharsets.US_ASCII));
    server.send(MessageCodec.MAGIC, rawFrame(1, bytes(b)));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void invalidUtf8QuotedInTheErrorStillGetsAnErrorFrame() {
    hello();
    // found by DecoderMutationTest: a pong whose nonce is a text of invalid UTF-8; the decoder's
    // message quotes it as an unpaired surrogate, which CBOR could not encode, so the client got
    // a close without the error
    server.send(java.util.HexFormat.of().parseHex("000000120bbf656e6f6e63656800efbfbff002dd984c"));
    expectFatal(ErrorCode.BAD_FRAME);
  }

  @Test
  void outOfOrderSubscribeBeforeHelloIsProtocolViolation() {
    server.send(MessageCodec.MAGIC, frame(Message.Subscribe.fresh(List.of("public.t"))));
    expectFatal(ErrorCode.PROTOCOL_VIOLATION);
  }

  @Test
  void framesAfterTheFatalErrorAreIgnored() {
    server.send(
        MessageCodec.MAGIC,
        new byte[] {0, 0, 0, 0},
        frame(new Message.Hello(Message.PROTOCOL_VERSION, "x", null, null, null)));
    expectFatal(ErrorCode.BAD_FRAME);
    assertThat(server.readBinary()).as("no welcome after the error").isNull();
  }
}
