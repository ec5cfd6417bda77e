package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.AbstractByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ResourceLeakDetector;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.MessageType;
import io.tablecast.protocol.SampleMessages;
import io.tablecast.server.log.RecentEvents;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Randomized mutation test of both decoders, bounded for CI: valid frames of every message type
 * ({@link SampleMessages}) in the binary encoding ({@link MessageCodec}) and the JSON encoding
 * ({@link WebSocketJsonCodec}) are mutated ({@link FrameMutator}) and fed, in random chunks, to the
 * server's real pipeline ({@link EmbeddedServer}). Every case must end with a decoded message, an
 * error and a close, or (binary) a decoder waiting for the rest of an announced frame; never an
 * exception escaping the pipeline, an {@code INTERNAL} error, an ERROR logged, a hang, or a buffer
 * still referenced after the disconnect ({@link TrackingAllocator}, plus Netty's leak detector at
 * PARANOID with a listener counting what it reports).
 *
 * <p>The seed is printed; rerun one with {@code -Dtablecast.seed=N} (and more cases with {@code
 * -Dtablecast.fuzz.cases=N}).
 */
class DecoderMutationTest {

  static final long SEED = Long.getLong("tablecast.seed", new SecureRandom().nextLong());
  static final int CASES = Integer.getInteger("tablecast.fuzz.cases", 600);
  private static final Duration BOUND = Duration.ofMinutes(3);
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static ResourceLeakDetector.Level previousLevel;

  private EmbeddedServer.TestHub hub;
  private volatile String current = "(not started)";
  private final Map<String, Integer> outcomes = new TreeMap<>();
  private long errorsBefore;

  @BeforeAll
  static void paranoidLeakDetection() throws ReflectiveOperationException, InterruptedException {
    System.out.println(
        "DecoderMutationTest seed "
            + SEED
            + " (rerun with -Dtablecast.seed="
            + SEED
            + "), "
            + CASES
            + " cases per encoding");
    previousLevel = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    // the detector every ByteBuf allocator reports to; its listener has no public accessor
    Field f = AbstractByteBuf.class.getDeclaredField("leakDetector");
    f.setAccessible(true);
    ((ResourceLeakDetector<?>) f.get(null))
        .setLeakListener((type, records) -> LEAKS.add(type + ": " + records));
    // buffers an earlier test class left unreleased are reported whenever a collection finds
    // them: report them here, under their own name, rather than as this test's leaks
    letTheDetectorReport();
    if (!LEAKS.isEmpty()) {
      System.err.println(
          "DecoderMutationTest: buffers leaked before it started (not its own): " + LEAKS);
      LEAKS.clear();
    }
  }

  @AfterAll
  static void restoreLeakDetection() {
    ResourceLeakDetector.setLevel(previousLevel);
  }

  @BeforeEach
  void setUp() {
    hub = EmbeddedServer.emptyHub();
    errorsBefore = RecentEvents.global().errors();
  }

  @AfterEach
  void tearDown() {
    hub.close();
    System.out.println("DecoderMutationTest outcomes: " + outcomes);
  }

  @Test
  void mutatedBinaryFramesEndInAMessageOrAnErrorAndCloseAndLeakNothing()
      throws InterruptedException {
    Random random = new Random(SEED);
    assertTimeoutPreemptively(
        BOUND,
        () -> {
          for (int i = 0; i < CASES; i++) {
            binaryCase(i, new FrameMutator(random));
          }
        },
        () -> "no end within " + BOUND + " (a hang?) in " + current);
    assertNoLeakReported();
    assertNoErrorLogged();
    assertThat(outcomes).containsKeys("decoded", "error BAD_FRAME", "waiting for the rest");
  }

  @Test
  void mutatedWebSocketMessagesEndInAMessageOrAnErrorAndCloseAndLeakNothing()
      throws InterruptedException {
    Random random = new Random(~SEED);
    assertTimeoutPreemptively(
        BOUND,
        () -> {
          for (int i = 0; i < CASES; i++) {
            webSocketCase(i, new FrameMutator(random));
          }
        },
        () -> "no end within " + BOUND + " (a hang?) in " + current);
    assertNoLeakReported();
    assertNoErrorLogged();
    assertThat(outcomes)
        .containsKeys("decoded", "error BAD_FRAME", "closed by the WebSocket layer");
  }

  private void binaryCase(int index, FrameMutator mutator) {
    MessageType type = MessageType.values()[mutator.between(0, MessageType.values().length - 1)];
    Message sample = SampleMessages.all().get(type);
    boolean afterHello = mutator.chance(0.7);
    byte[] frame;
    if (mutator.chance(0.35)) {
      ObjectNode tree = FrameMutator.tree(sample);
      mutator.mutateTree(tree);
      byte[] body = mutator.cbor(tree);
      frame =
          ByteBuffer.allocate(5 + body.length)
              .putInt(1 + body.length)
              .put((byte) type.code())
              .put(body)
              .array();
    } else {
      frame = EmbeddedServer.frame(sample);
    }
    if (mutator.chance(0.85)) {
      frame = mutator.mutateBytes(frame, true);
    }
    if (mutator.chance(0.15)) {
      byte[] ping = EmbeddedServer.frame(new Message.Ping(99));
      frame = concat(frame, ping);
    }
    byte[] input = frame;
    current =
        "binary case "
            + index
            + " of seed "
            + SEED
            + ": "
            + type
            + (afterHello ? " after hello" : "")
            + ", "
            + mutator.applied()
            + ", bytes "
            + HexFormat.of().formatHex(input, 0, Math.min(input.length, 200));

    EmbeddedServer server = new EmbeddedServer(hub);
    server.send(MessageCodec.MAGIC);
    server.tapDecodedMessages();
    if (afterHello) {
      server.send(
          EmbeddedServer.frame(
              new Message.Hello(Message.PROTOCOL_VERSION, "fuzz", null, null, null)));
      assertThat(server.readBinary()).as(current).isInstanceOf(Message.Welcome.class);
    }
    int before = server.decodedMessages();
    for (byte[] chunk : mutator.chunks(input)) {
      if (server.ch.isOpen()) { // a closed client socket takes no more bytes
        server.send(chunk);
      }
    }
    server.ch.checkException(); // rethrows what reached the end of the pipeline
    List<Message> written = server.readAllBinary();
    Message.Error fatal =
        checkErrors(
            written.stream()
                .filter(Message.Error.class::isInstance)
                .map(Message.Error.class::cast)
                .toList());
    if (!server.ch.isOpen()) {
      if (fatal == null) {
        fail("closed without an error frame: " + written + " in " + current);
      }
      count("error " + fatal.code());
    } else if (fatal != null) {
      fail("a fatal error but the connection stayed open: " + fatal + " in " + current);
    } else if (server.decodedMessages() > before) {
      count("decoded");
    } else if (endsIncomplete(input)) {
      count("waiting for the rest");
    } else {
      fail("neither decoded, refused nor waiting for more bytes: " + current);
    }
    closeChecked(server);
  }

  private void webSocketCase(int index, FrameMutator mutator) {
    MessageType type = MessageType.values()[mutator.between(0, MessageType.values().length - 1)];
    String codecText = jsonViaCodec(SampleMessages.all().get(type));
    boolean afterHello = mutator.chance(0.7);
    byte[] payload;
    if (mutator.chance(0.4)) {
      ObjectNode tree = (ObjectNode) readTree(codecText);
      String typeName = tree.remove("type").asText();
      mutator.mutateTree(tree);
      payload = mutator.json(mutator.chance(0.9) ? typeName : null, tree);
    } else {
      payload = codecText.getBytes(StandardCharsets.UTF_8);
    }
    if (mutator.chance(0.7)) {
      payload = mutator.mutateBytes(payload, false);
    }
    byte[] wire;
    if (payload.length > 2 && mutator.chance(0.2)) {
      int cut = mutator.between(1, payload.length - 1);
      wire =
          EmbeddedServer.wsBytes(
              new TextWebSocketFrame(false, 0, Unpooled.wrappedBuffer(payload, 0, cut)),
              new ContinuationWebSocketFrame(
                  true, 0, Unpooled.wrappedBuffer(payload, cut, payload.length - cut)));
    } else {
      wire = EmbeddedServer.wsBytes(new TextWebSocketFrame(Unpooled.wrappedBuffer(payload)));
    }
    boolean rawMutated = mutator.chance(0.25);
    if (rawMutated) {
      wire = mutator.mutateWebSocketFrame(wire);
    }
    byte[] input = wire;
    current =
        "WebSocket case "
            + index
            + " of seed "
            + SEED
            + ": "
            + type
            + (afterHello ? " after hello" : "")
            + ", "
            + mutator.applied()
            + ", payload "
            + new String(payload, 0, Math.min(payload.length, 200), StandardCharsets.UTF_8);

    EmbeddedServer server = new EmbeddedServer(hub);
    server.upgrade();
    server.tapDecodedMessages();
    if (afterHello) {
      server.sendWs(
          new TextWebSocketFrame(
              "{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"fuzz\"}"));
      List<WebSocketFrame> welcome = server.readWs();
      assertThat(EmbeddedServer.json(welcome.get(0)))
          .as(current)
          .isInstanceOf(Message.Welcome.class);
      welcome.forEach(WebSocketFrame::release);
    }
    int before = server.decodedMessages();
    for (byte[] chunk : mutator.chunks(input)) {
      if (server.ch.isOpen()) { // a closed client socket takes no more bytes
        server.send(chunk);
      }
    }
    server.ch.checkException();
    List<WebSocketFrame> frames = server.readWs();
    List<Message.Error> errors = new ArrayList<>();
    CloseWebSocketFrame close = null;
    for (WebSocketFrame f : frames) {
      if (f instanceof TextWebSocketFrame && EmbeddedServer.json(f) instanceof Message.Error e) {
        errors.add(e);
      } else if (f instanceof CloseWebSocketFrame c && close == null) {
        close = c;
      }
    }
    // a close frame without a status code is a close frame: Netty answers a client's empty close
    // with an empty one, as RFC 6455 allows (its statusCode() is -1)
    boolean closeFrameSent = close != null;
    frames.forEach(WebSocketFrame::release);
    Message.Error fatal = checkErrors(errors);
    if (!server.ch.isOpen()) {
      if (!closeFrameSent) {
        fail("closed without a close frame (errors " + errors + ") in " + current);
      }
      count(fatal != null ? "error " + fatal.code() : "closed by the WebSocket layer");
    } else if (fatal != null) {
      fail("a fatal error but the connection stayed open: " + fatal + " in " + current);
    } else if (server.decodedMessages() > before) {
      count("decoded");
    } else if (rawMutated) {
      count("control frame or incomplete WebSocket frame");
    } else {
      fail("a whole text message was neither decoded nor refused: " + current);
    }
    closeChecked(server);
  }

  /** The fatal error among those written (at most one), after checking none is INTERNAL. */
  private Message.Error checkErrors(List<Message.Error> errors) {
    Message.Error fatal = null;
    for (Message.Error e : errors) {
      assertThat(e.code())
          .as("an unexpected server failure: " + e.message() + " in " + current)
          .isNotEqualTo(ErrorCode.INTERNAL);
      if (e.table() == null) {
        assertThat(fatal).as("a second fatal error " + e + " in " + current).isNull();
        fatal = e;
      }
    }
    return fatal;
  }

  private void closeChecked(EmbeddedServer server) {
    try {
      server.closeAndAssertNothingLeaked();
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + " in " + current, e);
    }
  }

  private void count(String outcome) {
    outcomes.merge(outcome, 1, Integer::sum);
  }

  /**
   * Whether the frame decoder, given these bytes, ends waiting for more: every frame before is
   * complete and the last one (or its length prefix) is cut short, or there are no bytes. A length
   * of 0 or less, or above the frame limit, is refused at once instead.
   */
  static boolean endsIncomplete(byte[] b) {
    int pos = 0;
    while (true) {
      int left = b.length - pos;
      if (left == 0) {
        return pos == 0; // no bytes at all: nothing to decode yet
      }
      if (left < MessageCodec.LENGTH_FIELD_BYTES) {
        return true;
      }
      int len = ByteBuffer.wrap(b).getInt(pos);
      if (len <= 0 || (long) len + MessageCodec.LENGTH_FIELD_BYTES > EmbeddedServer.MAX_FRAME) {
        return false;
      }
      if (left - MessageCodec.LENGTH_FIELD_BYTES < len) {
        return true;
      }
      pos += MessageCodec.LENGTH_FIELD_BYTES + len;
    }
  }

  /** A message as the server's WebSocket codec writes it. */
  private static String jsonViaCodec(Message m) {
    EmbeddedChannel enc = new EmbeddedChannel(new WebSocketJsonCodec());
    enc.writeOutbound(m);
    TextWebSocketFrame f = enc.readOutbound();
    try {
      return f.text();
    } finally {
      f.release();
      enc.finishAndReleaseAll();
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode readTree(String text) {
    try {
      return MessageCodec.jsonMapper().readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Fails with what the leak detector reported since this test class started. */
  /**
   * No case made the server log an ERROR: what a client sends, however bad, is a client's fault,
   * also where the error frame cannot be seen (the connection closed first).
   */
  private void assertNoErrorLogged() {
    long logged = RecentEvents.global().errors() - errorsBefore;
    assertThat(logged)
        .as(
            "ERROR events logged, the newest: %s",
            RecentEvents.global().newestFirst().stream()
                .filter(e -> e.level().equals("ERROR"))
                .limit(3)
                .map(e -> e.message() + " " + e.error())
                .toList())
        .isZero();
  }

  private static void assertNoLeakReported() throws InterruptedException {
    letTheDetectorReport();
    assertThat(LEAKS).as("buffers the leak detector found unreleased").isEmpty();
  }

  /**
   * Lets the garbage collector find unreachable buffers and the leak detector report them (it
   * reports when a new buffer is tracked).
   */
  private static void letTheDetectorReport() throws InterruptedException {
    for (int round = 0; round < 3; round++) {
      ReferenceQueue<Object> queue = new ReferenceQueue<>();
      WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
      System.gc();
      queue.remove(Duration.ofSeconds(5).toMillis()); // the collection has processed references
      for (int i = 0; i < 100; i++) {
        UnpooledByteBufAllocator.DEFAULT.heapBuffer(8).release();
      }
      sentinel.clear();
    }
  }
}
