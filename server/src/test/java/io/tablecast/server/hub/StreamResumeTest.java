package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.NODES;
import static io.tablecast.server.hub.FakeChangeSource.delete;
import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hub of a stream replays a resume older than its resume buffer from the stream's history, and
 * the batches it applies while the history is being read follow the replay: no gap, no duplicate.
 * When the history no longer holds the position, the session gets the snapshot at the position the
 * resume was accepted at, and the same batches after it.
 */
class StreamResumeTest {
  static final Duration NO_HEARTBEAT = Duration.ofHours(1);
  static final TableSchema A = table("a");
  static final String T = "public.a";

  /** The stream: every batch published, by position; a read waits until {@link #open}. */
  static final class History implements BatchHistory {
    final List<Positioned> published = new CopyOnWriteArrayList<>();
    final CountDownLatch open = new CountDownLatch(1);
    final CountDownLatch reading = new CountDownLatch(1);
    volatile long firstHeld = 1;

    @Override
    public Reading read(long after, long through) throws IOException {
      if (after + 1 < firstHeld) {
        throw new Gone("trimmed before " + firstHeld);
      }
      List<Positioned> range = new ArrayList<>();
      for (Positioned p : published) {
        if (p.position() > after && p.position() <= through) {
          range.add(p);
        }
      }
      Iterator<Positioned> it = range.iterator();
      return new Reading() {
        @Override
        public Positioned next() throws InterruptedException {
          reading.countDown();
          assertThat(open.await(10, TimeUnit.SECONDS)).isTrue();
          return it.hasNext() ? it.next() : null;
        }

        @Override
        public void close() {}
      };
    }
  }

  private final History history = new History();
  private HubHarness h;
  private long sequence = 10;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  /** Publishes like a server of a stream: the batch takes the next stream sequence. */
  private long publish(RowEvent... events) {
    long at = ++sequence;
    CommittedBatch b = new CommittedBatch(List.of(events), 1234);
    history.published.add(new BatchHistory.Positioned(at, b));
    h.hub.publishAt(at, b);
    return at;
  }

  private void start() {
    h = new HubHarness(TestHubSettings.of(NO_HEARTBEAT, 2, 1L << 30, 64L << 20), history, A);
    h.load(3, A);
    h.hub.publishAt(sequence, CommittedBatch.EMPTY); // the images are at this sequence
  }

  @Test
  void batchesAppliedWhileTheStreamIsReadFollowTheReplayWithNoGapAndNoDuplicate() throws Exception {
    start();
    long resumeAt = publish(insert(T, 10, "x"));
    long[] away = {
      publish(insert(T, 11, "y")),
      publish(update(T, 10, "x", "x2")),
      publish(delete(T, 2, "row2")),
      publish(insert(T, 12, "z"))
    };
    HubHarness.Session s = h.connect("resumer");
    h.hub.subscribe(s.subscriber(), new Message.Subscribe(List.of(T), "stream-epoch", resumeAt));
    assertThat(history.reading.await(10, TimeUnit.SECONDS)).isTrue();
    long live1 = publish(insert(T, 13, "while reading"));
    long live2 = publish(update(T, 11, "y", "y2"));
    history.open.countDown();

    Message.Resumed resumed = s.client().next(Message.Resumed.class);
    assertThat(resumed.position()).isEqualTo(resumeAt);
    List<Long> positions = new ArrayList<>();
    List<String> changes = new ArrayList<>();
    while (positions.size() < away.length + 2) {
      Message.ChangeBatch b = s.client().next(Message.ChangeBatch.class);
      positions.add(b.position());
      b.changes().forEach(c -> changes.add(c.op() + " " + c.key().get(0).asLong()));
    }
    assertThat(positions).containsExactly(away[0], away[1], away[2], away[3], live1, live2);
    assertThat(changes)
        .containsExactly(
            "INSERT 11", "UPDATE 10", "DELETE 2", "INSERT 12", "INSERT 13", "UPDATE 11");
    assertThat(s.client().poll(200, TimeUnit.MILLISECONDS)).as("nothing twice").isNull();
  }

  @Test
  void aReplayFiltersRowsAsTheLiveStreamDoes() throws Exception {
    start();
    long resumeAt = publish(insert(T, 10, "mine"));
    publish(insert(T, 11, "mine"));
    publish(update(T, 10, "mine", "theirs")); // moves out: a DELETE for this session
    publish(update(T, 11, "mine", "theirs"));
    publish(update(T, 11, "theirs", "mine")); // moves in: an INSERT
    long last = publish(update(T, 2, "row2", "row2b")); // outside before and after: nothing
    history.open.countDown();
    SessionPolicy mine = new SessionPolicy(Set.of(T), "name", NODES.textNode("mine"), null);
    HubHarness.Session s = h.connect("filtered", mine);
    h.hub.subscribe(s.subscriber(), new Message.Subscribe(List.of(T), "stream-epoch", resumeAt));
    s.client().next(Message.Resumed.class);
    List<String> changes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Message.ChangeBatch b = s.client().next(Message.ChangeBatch.class);
      b.changes().forEach(c -> changes.add(c.op() + " " + c.key().get(0).asLong()));
    }
    assertThat(changes).containsExactly("INSERT 11", "DELETE 10", "DELETE 11", "INSERT 11");
    long next = publish(insert(T, 13, "mine"));
    Message.ChangeBatch live = s.client().next(Message.ChangeBatch.class);
    assertThat(live.position()).isEqualTo(next).isGreaterThan(last);
  }

  @Test
  void aReplayTooLargeToKeepIsReadAgainAsTheClientTakesItWithTheSameFrames() throws Exception {
    start();
    long resumeAt = publish(insert(T, 10, "x"));
    for (int i = 11; i < 40; i++) {
      publish(insert(T, i, "row" + i), update(T, 10, "x", "x" + i));
    }
    long through = publish(delete(T, 10, "x39"));
    history.open.countDown();
    HubHarness.Session s = h.connect("large");
    Message.Resumed resumed = new Message.Resumed(List.of(T), List.of(), resumeAt);
    HistoryChanges changes =
        new HistoryChanges(
            Map.of(T, new HistoryChanges.Layout(A, Rows.form(A))),
            SessionPolicy.ALLOW_ALL,
            Set.of());
    Map<String, List<String>> keys = Map.of(T, List.of("id"));
    List<Message> kept =
        frames(
            new StreamResume(
                s.subscriber(),
                resumed,
                through,
                history,
                changes,
                keys,
                null,
                ServerMetrics.NOOP));
    StreamResume readAgain =
        new StreamResume(
            s.subscriber(), resumed, through, history, changes, keys, null, ServerMetrics.NOOP, 0);
    List<Message> again = frames(readAgain);
    readAgain.close();
    assertThat(kept).hasSize(31); // resumed, then 30 batches
    assertThat(again).hasSameSizeAs(kept);
    for (int i = 1; i < kept.size(); i++) {
      Message.ChangeBatch a = (Message.ChangeBatch) kept.get(i);
      Message.ChangeBatch b = (Message.ChangeBatch) again.get(i);
      assertThat(b.position()).isEqualTo(a.position());
      assertThat(b.changes())
          .extracting(Message.Change::op)
          .isEqualTo(a.changes().stream().map(Message.Change::op).toList());
      assertThat(b.changes())
          .extracting(c -> c.key().get(0).asLong())
          .isEqualTo(a.changes().stream().map(c -> c.key().get(0).asLong()).toList());
    }
  }

  private static List<Message> frames(CatchUpSender.Frames f) {
    List<Message> out = new ArrayList<>();
    for (Message m; (m = f.next()) != null; ) {
      out.add(m);
    }
    return out;
  }

  @Test
  void aPositionTheStreamNoLongerHoldsGetsTheSnapshotAtTheResumeAndTheBatchesAfterIt()
      throws Exception {
    start();
    long resumeAt = publish(insert(T, 10, "x"));
    publish(insert(T, 11, "y"));
    publish(insert(T, 12, "z"));
    long accepted = publish(insert(T, 13, "w"));
    history.firstHeld = accepted; // trimmed
    HubHarness.Session s = h.connect("trimmed");
    h.hub.subscribe(s.subscriber(), new Message.Subscribe(List.of(T), "stream-epoch", resumeAt));
    Message.SnapshotBegin begin = s.client().next(Message.SnapshotBegin.class);
    assertThat(begin.position()).isEqualTo(accepted);
    assertThat(begin.rowCount()).isEqualTo(7);
    s.client().next(Message.SnapshotRows.class);
    s.client().next(Message.SnapshotEnd.class);
    long live = publish(insert(T, 14, "v"));
    assertThat(s.client().next(Message.ChangeBatch.class).position()).isEqualTo(live);
  }
}
