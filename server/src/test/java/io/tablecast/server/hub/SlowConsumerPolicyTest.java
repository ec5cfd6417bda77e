package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.config.SlowConsumerSettings;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The slow-consumer policy on one session, driven directly (the channel's writability is decided by
 * the callers; here the folding and the limits are under test).
 */
class SlowConsumerPolicyTest {

  private static final String T = "public.a";

  private final TableImages images = new TableImages();
  private final MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
  private SlowConsumerSettings limits;
  private SlowConsumerPolicy policy;
  private EmbeddedChannel channel;

  @BeforeEach
  void setUp() {
    images.replaceAll(List.of(new TableImage(FakeChangeSource.table("a"))));
    use(
        new SlowConsumerSettings(
            64L << 20,
            1000,
            SlowConsumerSettings.DEFAULTS.coalesceMaxBytes(),
            SlowConsumerSettings.DEFAULTS.snapshotTimeout()));
  }

  /** The policy under test enforces {@code settings}. */
  private void use(SlowConsumerSettings settings) {
    limits = settings;
    policy = new SlowConsumerPolicy(images, limits, metrics);
  }

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
  }

  private Subscriber session(Encoding encoding) {
    channel = new EmbeddedChannel();
    Subscriber s =
        new Subscriber(
            channel,
            "slow",
            limits.maxPendingBytes(),
            metrics,
            encoding,
            "p",
            SessionPolicy.ALLOW_ALL);
    s.addTables(List.of(T));
    return s;
  }

  private Message.Change insert(long id, String name) {
    return new Message.Change(
        T, Op.INSERT, JsonEdge.keyOf(row(id, name), images.primaryKeyOf(T)), null, row(id, name));
  }

  /** Everything written to the channel, decoded as the session's messages would be on the wire. */
  private List<Object> written() {
    List<Object> out = new ArrayList<>();
    Object o;
    while ((o = channel.readOutbound()) != null) {
      out.add(o);
    }
    return out;
  }

  private static void release(List<Object> frames) {
    frames.forEach(ReferenceCountUtil::release);
  }

  @Test
  void pastMaxKeysTheSessionIsDroppedAndItsChangesAreFreed() {
    use(
        new SlowConsumerSettings(
            64L << 20, 3, limits.coalesceMaxBytes(), limits.snapshotTimeout()));
    Subscriber s = session(Encoding.BINARY);
    policy.coalesce(s, 1, 0, List.of(insert(1, "a"), insert(2, "b"), insert(3, "c")));
    assertThat(s.closed).isFalse();
    policy.coalesce(s, 2, 0, List.of(insert(4, "d")));
    assertThat(s.closed).isTrue();
    assertThat(s.coalescer).as("nothing kept for a dropped session").isNull();
    List<Object> frames = written();
    assertThat(frames)
        .singleElement()
        .isInstanceOfSatisfying(
            Message.Error.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.SLOW_CONSUMER);
              assertThat(e.message()).contains("coalesce_max_keys 3");
            });
    assertThat(metrics.registry().find("tablecast.slow.consumers").counter().count()).isEqualTo(1);
  }

  @Test
  void pastMaxBytesTheSessionIsDroppedWhateverTheKeyCount() {
    use(
        new SlowConsumerSettings(
            64L << 20, limits.coalesceMaxKeys(), 4096, limits.snapshotTimeout()));
    Subscriber s = session(Encoding.BINARY);
    policy.coalesce(s, 1, 0, List.of(insert(1, "x".repeat(2000))));
    assertThat(s.closed).isFalse();
    policy.coalesce(s, 2, 0, List.of(insert(2, "x".repeat(3000))));
    assertThat(s.closed).isTrue();
    List<Object> frames = written();
    assertThat(frames)
        .singleElement()
        .isInstanceOfSatisfying(
            Message.Error.class, e -> assertThat(e.message()).contains("coalesce_max_bytes 4096"));
  }

  @Test
  void coalescedBatchIsSentAtTheNewestPositionWithinTheLimits() {
    use(
        new SlowConsumerSettings(
            64L << 20, limits.coalesceMaxKeys(), 4096, limits.snapshotTimeout()));
    Subscriber s = session(Encoding.BINARY);
    policy.coalesce(s, 1, 10, List.of(insert(1, "a")));
    policy.coalesce(s, 2, 20, List.of(insert(2, "b")));
    policy.flush(s);
    List<Object> frames = written();
    assertThat(frames).hasSize(1);
    io.netty.buffer.ByteBuf b = (io.netty.buffer.ByteBuf) frames.get(0);
    Message.ChangeBatch batch =
        (Message.ChangeBatch)
            io.tablecast.protocol.MessageCodec.decodeFrameBody(
                b.skipBytes(io.tablecast.protocol.MessageCodec.LENGTH_FIELD_BYTES));
    assertThat(batch.position()).isEqualTo(2);
    assertThat(batch.captureMillis()).isEqualTo(20);
    assertThat(batch.changes()).hasSize(2);
    assertThat(s.closed).isFalse();
    release(frames);
  }

  /**
   * The byte estimate counts a character once; JSON escapes a control character as six. A coalesced
   * batch that would encode above {@code coalesce_max_bytes} is never sent.
   */
  @Test
  void coalescedBatchThatWouldEncodeAboveTheLimitIsNotSentAndTheSessionIsDropped() {
    use(
        new SlowConsumerSettings(
            64L << 20, limits.coalesceMaxKeys(), 8192, limits.snapshotTimeout()));
    Subscriber s = session(Encoding.JSON);
    policy.coalesce(s, 1, 0, List.of(insert(1, "\u0001".repeat(3000))));
    assertThat(s.closed).as("about 3 KB by the estimate: within the limit").isFalse();
    policy.flush(s);
    assertThat(s.closed).isTrue();
    List<Object> frames = written();
    assertThat(frames)
        .as("the error only, no oversized batch")
        .singleElement()
        .isInstanceOfSatisfying(
            Message.Error.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.SLOW_CONSUMER);
              assertThat(e.message()).contains("encode to").contains("coalesce_max_bytes 8192");
            });
  }

  @Test
  void coalescingFollowsTheSessionsTablesAndPolicy() {
    Subscriber s = session(Encoding.BINARY);
    images.replaceAll(
        List.of(
            new TableImage(FakeChangeSource.table("a")),
            new TableImage(FakeChangeSource.table("b"))));
    Message.Change other =
        new Message.Change(
            "public.b",
            Op.INSERT,
            JsonEdge.keyOf(row(9, "b"), images.primaryKeyOf(T)),
            null,
            row(9, "b"));
    policy.coalesce(s, 1, 0, List.of(other));
    assertThat(s.coalescer).as("nothing of its tables: nothing to fold").isNull();
    Subscriber filtered =
        new Subscriber(
            channel,
            "f",
            limits.maxPendingBytes(),
            metrics,
            Encoding.BINARY,
            "p",
            new SessionPolicy(
                Set.of(T),
                "name",
                io.tablecast.server.hub.FakeChangeSource.NODES.textNode("mine"),
                null));
    filtered.addTables(List.of(T));
    policy.coalesce(filtered, 1, 0, List.of(insert(1, "theirs"), insert(2, "mine")));
    assertThat(filtered.coalescer.keys()).isEqualTo(1);
  }

  @Test
  void batchLargerThanMaxPendingBytesStillReachesAClientWithNothingQueued() {
    Subscriber s =
        new Subscriber(
            channel = new EmbeddedChannel(),
            "big",
            1024,
            metrics,
            Encoding.BINARY,
            "p",
            SessionPolicy.ALLOW_ALL);
    s.send(io.netty.buffer.Unpooled.buffer().writeZero(4096));
    assertThat(s.closed).isFalse();
    List<Object> frames = written();
    assertThat(frames).hasSize(1);
    release(frames);
  }
}
