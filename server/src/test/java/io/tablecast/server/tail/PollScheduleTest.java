package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.metrics.ServerMetrics;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The pauses between the tail's empty reads, driven by a fake clock and sleep: no wall-clock
 * timing. While changes arrive the tail reads about ten times per average gap between them, never
 * more often than {@code min_poll_interval}; once none came for {@code poll_idle_after} it backs
 * off, doubling up to {@code max_poll_interval}; a change starts the busy spell again.
 */
class PollScheduleTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void anIdleTailBacksOffFromMinToMax() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), seconds(1));
    assertThat(pauses(s, 0, 6)).containsExactly(1L, 2L, 4L, 8L, 10L, 10L);
  }

  @Test
  void whileChangesArriveEveryPauseIsTheShortestUntilIdleAfterHasPassed() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), seconds(1));
    pauses(s, 0, 8); // backed off to 10 ms
    s.foundRows(100 * MS);
    long now = 100 * MS;
    List<Long> busy = new ArrayList<>();
    while (now < 1_099 * MS) { // 999 ms of empty reads after the change: still 1 ms each
      long p = s.pauseAfterEmptyRead(now);
      busy.add(p / MS);
      now += p;
    }
    assertThat(busy).hasSize(999).containsOnly(1L);
    // 1 s after the change: the back-off starts again from the shortest pause
    assertThat(pauses(s, 1_100 * MS, 6)).containsExactly(1L, 2L, 4L, 8L, 10L, 10L);
  }

  @Test
  void whileChangesArriveThePauseIsATenthOfTheirAverageGap() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), seconds(1));
    long now = arrivals(s, 0, 100, 10); // 100 changes/s
    assertThat(s.pauseAfterEmptyRead(now + MS)).isEqualTo(MS);
    now = arrivals(s, now, 100, 50); // 20 changes/s: the average follows
    // the average has moved within a few ns of the new gap
    assertThat(s.pauseAfterEmptyRead(now + MS)).isCloseTo(5 * MS, within(1_000L));
    now = arrivals(s, now, 100, 400); // 2.5 changes/s: never longer than the longest pause
    assertThat(s.pauseAfterEmptyRead(now + MS)).isEqualTo(10 * MS);
    now = arrivals(s, now, 100, 1); // 1,000/s: never shorter than the shortest
    assertThat(s.pauseAfterEmptyRead(now + MS / 2)).isEqualTo(MS);
  }

  @Test
  void afterAnIdleSpellTheBackOffStartsFromTheBusyPause() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(40), seconds(1));
    long now = arrivals(s, 0, 100, 30); // every 30 ms: 3 ms pauses
    assertThat(pauses(s, now + 1_000 * MS, 5)).containsExactly(3L, 6L, 12L, 24L, 40L);
  }

  @Test
  void aChangeDuringTheBackOffResetsItToTheShortestPause() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(2), Duration.ofMillis(50), seconds(1));
    assertThat(pauses(s, 0, 6)).containsExactly(2L, 4L, 8L, 16L, 32L, 50L);
    s.foundRows(200 * MS);
    assertThat(s.pauseAfterEmptyRead(201 * MS)).isEqualTo(2 * MS);
    assertThat(s.pauseAfterEmptyRead(900 * MS)).isEqualTo(2 * MS);
  }

  @Test
  void idleAfterZeroIsTheScheduleOfBeforeBackingOffAfterEveryEmptyRead() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), Duration.ZERO);
    s.foundRows(0);
    assertThat(pauses(s, 0, 5)).containsExactly(1L, 2L, 4L, 8L, 10L);
    s.foundRows(50 * MS);
    assertThat(pauses(s, 50 * MS, 3)).containsExactly(1L, 2L, 4L);
  }

  @Test
  void afterAReadThatFoundRowsThePauseIsTheBusyPauseOrNoneWithIdleAfterZero() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), seconds(1));
    s.foundRows(0);
    assertThat(s.pauseAfterRows()).as("one change seen: the shortest").isEqualTo(MS);
    arrivals(s, 0, 100, 50); // 20 changes/s
    assertThat(s.pauseAfterRows()).isCloseTo(5 * MS, within(1_000L));
    arrivals(s, 0, 100, 1); // 1,000/s or faster: never shorter than min
    assertThat(s.pauseAfterRows()).isEqualTo(MS);
    PollSchedule before =
        new PollSchedule(Duration.ofMillis(1), Duration.ofMillis(10), Duration.ZERO);
    before.foundRows(0);
    arrivals(before, 0, 10, 5);
    assertThat(before.pauseAfterRows()).isZero();
  }

  @Test
  void aFixedScheduleWhenMinEqualsMax() {
    PollSchedule s = new PollSchedule(Duration.ofMillis(5), Duration.ofMillis(5), Duration.ZERO);
    assertThat(pauses(s, 0, 4)).containsExactly(5L, 5L, 5L, 5L);
  }

  @Test
  void refusesAMinAboveTheMax() {
    assertThatThrownBy(
            () -> new PollSchedule(Duration.ofMillis(20), Duration.ofMillis(10), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("min PT0.02S");
  }

  /**
   * Through {@link PollingChangeSource#poll}: the pauses it sleeps between the reads of one poll
   * follow the schedule, a read that found rows ends the poll at once, and the next poll (which
   * first pauses after those rows) stays at the shortest pause while the change is recent.
   */
  @Test
  void pollSleepsTheScheduledPauses() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (ScriptedSource source = new ScriptedSource(ticker, 1, 10, seconds(1))) {
      // no change yet: an idle tail backs off while the poll waits its 50 ms
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
      assertThat(ticker.sleptMillis()).containsExactly(1L, 2L, 4L, 8L, 10L, 10L, 10L, 5L);
      ticker.slept.clear();
      source.rows.add(nonEmpty()); // a change arrives: the next read returns it, no sleep
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isFalse();
      assertThat(ticker.slept).isEmpty();
      // the next poll finds nothing for 20 ms and keeps reading every 1 ms
      assertThat(source.poll(Duration.ofMillis(20)).isEmpty()).isTrue();
      assertThat(ticker.sleptMillis()).hasSize(20).containsOnly(1L);
    }
  }

  /**
   * A busy tail reads at most once per {@code min_poll_interval}: after a read that found rows the
   * next poll pauses before it reads, though rows are waiting, and returns them after one read.
   */
  @Test
  void whileChangesArriveAPollPausesAfterAReadThatFoundRows() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (ScriptedSource source = new ScriptedSource(ticker, 2, 10, seconds(1))) {
      for (int i = 0; i < 4; i++) {
        source.rows.add(nonEmpty());
      }
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isFalse();
      assertThat(ticker.slept).as("the first read, after an empty spell: at once").isEmpty();
      for (int i = 0; i < 3; i++) {
        assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isFalse();
      }
      assertThat(ticker.sleptMillis())
          .as("one pause before each later read")
          .containsExactly(2L, 2L, 2L);
      assertThat(source.reads).isEqualTo(4);
      ticker.slept.clear();
      // a poll shorter than the pause owed pauses only until its deadline, then reads
      source.rows.add(nonEmpty());
      assertThat(source.poll(Duration.ofMillis(1)).isEmpty()).isFalse();
      assertThat(ticker.sleptMillis()).containsExactly(1L);
    }
  }

  /**
   * Read-your-writes: a poll returns after the first empty read that began after a sync request,
   * instead of waiting out its time (the tail then completes the request), and a request made while
   * it pauses between reads is answered by the read that follows the pause.
   */
  @Test
  void pollReturnsAfterTheFirstReadThatBeganAfterASyncRequest() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (ScriptedSource source = new ScriptedSource(ticker, 1, 10, seconds(1))) {
      ReadBarrier barrier = source.readBarrier().orElseThrow();
      CompletableFuture<Void> before = barrier.request();
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
      assertThat(ticker.slept).as("the first read answers it: no pause").isEmpty();
      barrier.delivered();
      assertThat(before).isCompleted();

      CompletableFuture<Void>[] during = new CompletableFuture[1];
      ticker.onSleep = () -> during[0] = during[0] == null ? barrier.request() : during[0];
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isTrue();
      assertThat(ticker.sleptMillis()).as("one pause, then the read that answers").hasSize(1);
      assertThat(during[0]).isNotDone();
      barrier.delivered();
      assertThat(during[0]).isCompleted();
    }
  }

  /** The schedule of before (poll_idle_after 0): after a change the pauses double again. */
  @Test
  void pollWithIdleAfterZeroBacksOffRightAfterAChange() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (ScriptedSource source = new ScriptedSource(ticker, 1, 10, Duration.ZERO)) {
      source.rows.add(nonEmpty());
      assertThat(source.poll(Duration.ofMillis(50)).isEmpty()).isFalse();
      assertThat(source.poll(Duration.ofMillis(20)).isEmpty()).isTrue();
      assertThat(ticker.sleptMillis()).containsExactly(1L, 2L, 4L, 8L, 5L);
    }
  }

  /** {@code n} reads that found rows, {@code gapMs} apart from {@code now}; the last one's time. */
  private static long arrivals(PollSchedule s, long now, int n, long gapMs) {
    for (int i = 0; i < n; i++) {
      now += gapMs * MS;
      s.foundRows(now);
    }
    return now;
  }

  private static CommittedBatch nonEmpty() {
    return new CommittedBatch(List.of(new RowEvent.Truncate("items")), 1);
  }

  private static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  /** The next {@code n} pauses in ms, each empty read following the pause before it. */
  private static List<Long> pauses(PollSchedule s, long now, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long p = s.pauseAfterEmptyRead(now);
      out.add(p / MS);
      now += p;
    }
    return out;
  }

  /** A clock that moves only when the tail sleeps. */
  static final class FakeTicker implements PollingChangeSource.Ticker {
    long now = 1_000_000 * MS;
    final List<Long> slept = new ArrayList<>();
    Runnable onSleep = () -> {};

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void sleep(long nanos, ReadBarrier wake) {
      onSleep.run();
      slept.add(nanos);
      now += nanos;
    }

    List<Long> sleptMillis() {
      return slept.stream().map(n -> n / MS).toList();
    }
  }

  /** A change source whose reads return the queued batches, then nothing. */
  static final class ScriptedSource extends PollingChangeSource {
    final Deque<CommittedBatch> rows = new ArrayDeque<>();
    int reads;

    /** Runs in each read (a test advances the fake clock in it: a read that takes that long). */
    Runnable onRead = () -> {};

    ScriptedSource(FakeTicker ticker, long minMs, long maxMs, Duration idleAfter) throws Exception {
      this(ticker, minMs, maxMs, idleAfter, ServerMetrics.NOOP);
    }

    ScriptedSource(
        FakeTicker ticker, long minMs, long maxMs, Duration idleAfter, ServerMetrics metrics)
        throws Exception {
      super(
          new HikariDataSource(), // never connected: the pruner starts only after a snapshot
          new SourceConfig(
              "jdbc:postgresql://127.0.0.1/unused",
              null,
              null,
              false,
              null,
              Duration.ofMillis(maxMs),
              null,
              null,
              List.of(CachedTable.of("items")),
              Duration.ofMillis(minMs),
              idleAfter,
              null,
              null),
          metrics,
          Duration.ofHours(1));
      ticker(ticker);
      // the pruner starts here and fails to connect (no URL): logged, then it rests for an hour
      snapshot((table, row) -> {});
    }

    @Override
    protected CommittedBatch readOnce() {
      reads++;
      onRead.run();
      return rows.isEmpty() ? CommittedBatch.EMPTY : rows.poll();
    }

    @Override
    protected void readSnapshot(SnapshotSink sink) {}

    @Override
    protected int pruneChunk(Connection c, int limit) {
      return 0;
    }

    @Override
    protected long backlog(Connection c) {
      return -1;
    }

    @Override
    public List<TableSchema> tables() {
      return List.of();
    }

    @Override
    public void resync(String table) {}
  }
}
