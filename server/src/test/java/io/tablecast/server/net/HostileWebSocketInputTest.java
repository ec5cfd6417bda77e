package io.tablecast.server.net;

import static io.tablecast.server.net.EmbeddedServer.frame;
import static io.tablecast.server.net.EmbeddedServer.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.log.RecentEvents;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile input on the WebSocket (JSON) encoding, one rule per test, in the server's real pipeline
 * ({@link EmbeddedServer}): every bad input gets an {@code error} text frame and a close frame (or,
 * for what the WebSocket layer refuses itself, a close frame with its status) and a closed
 * connection; no buffer stays referenced after the disconnect (checked after every test). Malformed
 * JSON is covered in {@link WebSocketSessionTest}, random mutations of every message type in {@link
 * DecoderMutationTest}.
 */
class HostileWebSocketInputTest {

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

  private static TextWebSocketFrame text(String s) {
    return new TextWebSocketFrame(s);
  }

  private void hello() {
    server.upgrade();
    server.sendWs(text("{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"hostile\"}"));
    List<WebSocketFrame> frames = server.readWs();
    assertThat(frames).hasSize(1);
    assertThat(json(frames.get(0))).isInstanceOf(Message.Welcome.class);
    frames.forEach(WebSocketFrame::release);
  }

  /** An error text frame with {@code code}, then a close frame with {@code status}, then closed. */
  private void expectFatal(ErrorCode code, int status) {
    List<WebSocketFrame> frames = server.readWs();
    try {
      assertThat(frames).as("error and close frames").hasSizeGreaterThanOrEqualTo(2);
      Message m = json(frames.get(0));
      assertThat(m).isInstanceOf(Message.Error.class);
      assertThat(((Message.Error) m).code()).isEqualTo(code);
      assertThat(frames.get(1)).isInstanceOf(CloseWebSocketFrame.class);
      assertThat(((CloseWebSocketFrame) frames.get(1)).statusCode()).isEqualTo(status);
    } finally {
      frames.forEach(WebSocketFrame::release);
    }
    server.settle();
    assertThat(server.ch.isOpen()).as("closed after the error").isFalse();
  }

  /** A close frame with {@code status} (sent by the WebSocket layer, without an error message). */
  private void expectClose(int status) {
    List<WebSocketFrame> frames = server.readWs();
    try {
      assertThat(frames)
          .anySatisfy(
              f -> {
                assertThat(f).isInstanceOf(CloseWebSocketFrame.class);
                assertThat(((CloseWebSocketFrame) f).statusCode()).isEqualTo(status);
              });
    } finally {
      frames.forEach(WebSocketFrame::release);
    }
    server.settle();
    assertThat(server.ch.isOpen()).isFalse();
  }

  @Test
  void binaryFrameIsBadFrame() {
    hello();
    server.sendWs(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(frame(new Message.Ping(1)))));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void fragmentedMessageIsReassembled() {
    hello();
    server.sendWs(
        new TextWebSocketFrame(false, 0, "{\"type\":\"ping\","),
        new ContinuationWebSocketFrame(true, 0, "\"nonce\":42}"));
    List<WebSocketFrame> frames = server.readWs();
    assertThat(frames).hasSize(1);
    assertThat(json(frames.get(0))).isEqualTo(new Message.Pong(42));
    frames.forEach(WebSocketFrame::release);
    assertThat(server.ch.isOpen()).isTrue();
  }

  /**
   * A client gone in the middle of a fragmented message (a tab closed, a network cut) is a
   * disconnect like any other, not a server failure: no ERROR logged, no INTERNAL error counted.
   */
  @Test
  void aClientGoneBetweenFragmentsIsNoServerFailure() {
    hello();
    long errors = RecentEvents.global().errors();
    server.sendWs(new TextWebSocketFrame(false, 0, "{\"type\":\"ping\","));
    server.ch.close();
    server.settle();
    assertThat(RecentEvents.global().errors() - errors).as("ERROR events logged").isZero();
  }

  @Test
  void continuationWithoutAStartIsClosed() {
    hello();
    server.sendWs(new ContinuationWebSocketFrame(true, 0, "\"nonce\":42}"));
    expectClose(1002); // protocol error, from the WebSocket layer
  }

  @Test
  void fragmentsAddingUpAboveTheLimitAreBadFrame() {
    hello();
    String half = "x".repeat(EmbeddedServer.MAX_FRAME / 2 + 10);
    server.sendWs(
        new TextWebSocketFrame(false, 0, "{\"type\":\"ping\",\"pad\":\"" + half),
        new ContinuationWebSocketFrame(false, 0, half),
        new ContinuationWebSocketFrame(true, 0, "\"}"));
    // the aggregator refuses the message: an error BAD_FRAME and close 1007 (a single frame above
    // the limit is refused earlier, by the frame decoder, with 1009)
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void oversizedFrameIsClosedWith1009() {
    hello();
    server.sendWs(
        text(
            "{\"type\":\"ping\",\"nonce\":1,\"pad\":\""
                + "x".repeat(EmbeddedServer.MAX_FRAME + 10)
                + "\"}"));
    expectClose(1009);
  }

  @Test
  void deeplyNestedJsonIsBadFrame() {
    hello();
    String deep = "[".repeat(1000) + "]".repeat(1000);
    server.sendWs(text("{\"type\":\"subscribe\",\"tables\":" + deep + ",\"resumePosition\":-1}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void numberWhereAStringIsExpectedIsBadFrame() {
    server.upgrade();
    server.sendWs(text("{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":1234}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void stringWhereANumberIsExpectedIsBadFrame() {
    server.upgrade();
    server.sendWs(text("{\"type\":\"hello\",\"protocolVersion\":\"1\"}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void tablesThatAreNotAListAreBadFrame() {
    hello();
    server.sendWs(text("{\"type\":\"subscribe\",\"tables\":{\"a\":1},\"resumePosition\":-1}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void hugeStringWithinTheLimitIsHandledWithoutCrash() {
    hello();
    server.sendWs(
        text(
            "{\"type\":\"subscribe\",\"tables\":[\""
                + "y".repeat(EmbeddedServer.MAX_FRAME - 200)
                + "\"],\"resumePosition\":-1}"));
    List<WebSocketFrame> frames = server.readWs();
    assertThat(frames).hasSize(1);
    assertThat(((Message.Error) json(frames.get(0))).code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
    frames.forEach(WebSocketFrame::release);
    assertThat(server.ch.isOpen()).isTrue();
  }

  @Test
  void unknownTypeIsBadFrame() {
    hello();
    server.sendWs(text("{\"type\":\"launch_missiles\"}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void missingRequiredFieldIsBadFrame() {
    hello();
    server.sendWs(text("{\"type\":\"ping\"}"));
    expectFatal(ErrorCode.BAD_FRAME, 1007);
  }

  @Test
  void invalidUtf8IsClosed() {
    hello();
    server.sendWs(
        new TextWebSocketFrame(
            Unpooled.wrappedBuffer(new byte[] {'{', (byte) 0xc3, (byte) 0x28, '}'})));
    // the WebSocket layer (1007) or our JSON decoder (error + 1007): either way closed with 1007
    expectClose(1007);
  }

  @Test
  void serverMessageFromClientIsProtocolViolation() {
    hello();
    server.sendWs(
        text("{\"type\":\"change_batch\",\"position\":1,\"captureMillis\":0,\"changes\":[]}"));
    expectFatal(ErrorCode.PROTOCOL_VIOLATION, 1008);
  }

  @Test
  void secondHelloIsProtocolViolation() {
    hello();
    server.sendWs(text("{\"type\":\"hello\",\"protocolVersion\":2}"));
    expectFatal(ErrorCode.PROTOCOL_VIOLATION, 1008);
  }
}
