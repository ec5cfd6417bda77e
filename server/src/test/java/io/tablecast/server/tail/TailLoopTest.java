package io.tablecast.server.tail;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the tail loop says of itself: when it was last caught up with the outbox, and what keeps it
 * from keeping the images current ({@code /health}).
 */
class TailLoopTest {

  /**
   * Every poll reads all the outbox holds (no read is cut short), so a poll that returns a batch
   * leaves the loop caught up as of its start. Before, only an empty poll counted: under steady
   * traffic (a transaction at least every 250 ms, the longest a poll waits) the caught-up age grew
   * without end and the TablecastTailBehind alert fired on a healthy, busy server.
   */
  @Test
  void theCaughtUpAgeStaysLowUnderSteadyTraffic() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource source = new FakeChangeSource().withTable(items, 1);
    AtomicInteger published = new AtomicInteger();
    TailSink sink = countingSink(published);
    try (TailLoop loop = new TailLoop(source, sink)) {
      loop.startAndAwaitSnapshot();
      long start = System.currentTimeMillis();
      long id = 2;
      while (System.currentTimeMillis() - start < 1_500) { // a change every 20 ms: no poll is empty
        source.commit(insert(items.id().qualified(), id++, "n"));
        Thread.sleep(20);
        if (published.get() > 5) {
          assertThat(System.currentTimeMillis() - loop.caughtUpMillis())
              .as("ms since the loop was last caught up, while it keeps up")
              .isLessThan(1_000);
        }
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> published.get() > 20);
    }
  }

  /**
   * The tail doubles its pause after each failed read up to the source's {@link
   * ChangeSource#longestRetryPause()}: a source whose failed reads cost nothing (a NATS stream read
   * while NATS is away) follows again soon after the outage. Before, every source waited up to 10 s
   * between attempts: twelve failures took about 52 s to retry through.
   */
  @Test
  void failedReadsAreRetriedNoLessOftenThanTheSourceAsks() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource fake = new FakeChangeSource().withTable(items, 1);
    ChangeSource source = new Paced(fake, Duration.ofMillis(200), Duration.ofSeconds(10), null);
    AtomicInteger published = new AtomicInteger();
    TailSink sink = countingSink(published);
    try (TailLoop loop = new TailLoop(source, sink)) {
      loop.startAndAwaitSnapshot();
      for (int i = 0; i < 12; i++) {
        fake.failNextPoll("the source is away");
      }
      fake.commit(insert(items.id().qualified(), 2, "after the outage"));
      await() // pauses of 0.1 s and then 0.2 s: about 2.3 s in all
          .atMost(Duration.ofSeconds(15))
          .until(() -> published.get() == 1);
    }
  }

  /**
   * {@code /health} turns DOWN once the reads have failed for three times {@code
   * source.answer_timeout}, naming no table, and UP again with the first read that succeeds. The
   * promise had no test before (a 30 s wait, fixed, where it now follows the setting).
   */
  @Test
  void readsFailingForThreeAnswerTimeoutsAreAProblemUntilOneSucceeds() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource fake = new FakeChangeSource().withTable(items, 1);
    ChangeSource source = new Paced(fake, Duration.ofMillis(50), ANSWER, null);
    AtomicInteger published = new AtomicInteger();
    try (TailLoop loop = new TailLoop(source, countingSink(published))) {
      loop.startAndAwaitSnapshot();
      assertThat(loop.problem()).isNull();
      for (int i = 0; i < 40; i++) { // pauses of 0.05 s: about 2 s of failing reads
        fake.failNextPoll("the database is away");
      }
      long failing = System.currentTimeMillis();
      await().atMost(Duration.ofSeconds(10)).until(() -> loop.problem() != null);
      assertThat(System.currentTimeMillis() - failing)
          .as("ms of failing reads before it was said")
          .isGreaterThan(2 * ANSWER.toMillis()); // three times, from a start a little before
      assertThat(loop.problem()).startsWith("reading changes from the database has failed for");
      fake.commit(insert(items.id().qualified(), 2, "after the outage"));
      await().atMost(Duration.ofSeconds(10)).until(() -> published.get() == 1);
      assertThat(loop.problem()).as("once a read succeeded").isNull();
    }
  }

  /**
   * A read that does not return (a database that stopped answering without closing the connection):
   * no read fails, so {@code /health} said UP for as long as it waited (a quarter of an hour by
   * Linux's defaults). Now DOWN once it has waited three times {@code source.answer_timeout}, and
   * UP again when it returns.
   */
  @Test
  void aReadUnansweredForThreeAnswerTimeoutsIsAProblemUntilItReturns() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource fake = new FakeChangeSource().withTable(items, 1);
    CountDownLatch answer = new CountDownLatch(1);
    Paced source = new Paced(fake, Duration.ofMillis(50), ANSWER, answer);
    AtomicInteger published = new AtomicInteger();
    try (TailLoop loop = new TailLoop(source, countingSink(published))) {
      loop.startAndAwaitSnapshot();
      source.silent = true;
      assertThat(source.waiting.await(5, TimeUnit.SECONDS)).as("a read waits").isTrue();
      long silenced = System.currentTimeMillis();
      fake.commit(insert(items.id().qualified(), 2, "committed while unanswered"));
      await().atMost(Duration.ofSeconds(10)).until(() -> loop.problem() != null);
      assertThat(System.currentTimeMillis() - silenced)
          .as("ms unanswered before it was said")
          .isGreaterThan(2 * ANSWER.toMillis()); // three times, from a start a little before
      assertThat(loop.problem())
          .startsWith("a read of changes from the database has not returned for");
      answer.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> published.get() == 1);
      assertThat(loop.problem()).as("once the read returned").isNull();
    }
  }

  /**
   * A poll said unanswered that then fails (the poll waited for the pool's connection longer than
   * {@code source.answer_timeout}, and the database refuses connections) is said again with its
   * error. Before, every mirror kept saying the database "may have stopped answering" until it was
   * back, whatever the failures said.
   */
  @Test
  void aPollSaidUnansweredThatThenFailsIsSaidAgainWithItsError() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource fake = new FakeChangeSource().withTable(items, 1);
    CountDownLatch answer = new CountDownLatch(1);
    Paced source = new Paced(fake, Duration.ofMillis(50), ANSWER, answer);
    List<String> said = new CopyOnWriteArrayList<>();
    try (TailLoop loop = new TailLoop(source, stalenessSink(said))) {
      loop.startAndAwaitSnapshot();
      source.failAfterSilence = new SQLException("Connection refused");
      source.silent = true;
      await().atMost(Duration.ofSeconds(10)).until(() -> !said.isEmpty());
      assertThat(said.get(0)).contains("has not returned");
      answer.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> said.size() >= 2);
      assertThat(said.get(1))
          .startsWith("the server has read no changes from the database since")
          .contains("(Connection refused)");
      fake.commit(insert(items.id().qualified(), 2, "back"));
      await().atMost(Duration.ofSeconds(10)).until(() -> said.size() >= 3);
      assertThat(said).hasSize(3);
      assertThat(said.get(2)).isEqualTo("followed");
    }
  }

  /**
   * A poll that is only long because it reads a table whole again (after an {@code ALTER TABLE}, a
   * {@code TRUNCATE}, a repaired capture) is said with that read and how far it is, not as a
   * database that may have stopped answering, which sent operators after the network.
   */
  @Test
  void aPollLongBecauseItReadsATableWholeAgainIsSaidSo() throws Exception {
    FakeChangeSource fake = new FakeChangeSource().withTable(table("items"), 1);
    CountDownLatch answer = new CountDownLatch(1);
    Paced source = new Paced(fake, Duration.ofMillis(50), ANSWER, answer);
    source.wholeReads = new WholeReads();
    List<String> said = new CopyOnWriteArrayList<>();
    try (TailLoop loop = new TailLoop(source, stalenessSink(said))) {
      loop.startAndAwaitSnapshot();
      try (WholeReads.Read read = source.wholeReads.start("re-read shop.orders")) {
        read.row();
        read.row();
        source.silent = true;
        await().atMost(Duration.ofSeconds(10)).until(() -> !said.isEmpty());
      }
      assertThat(said.get(0))
          .contains("it is reading a table whole again (re-read shop.orders: 2 rows, ")
          .doesNotContain("may have stopped answering");
      assertThat(source.wholeReadNow()).as("once the read is over").isNull();
      answer.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> said.size() >= 2);
      assertThat(said.get(1)).isEqualTo("followed");
    }
  }

  /**
   * A poll that goes unanswered after polls that failed (a connection cut, then the pool waiting
   * for a new one) is said with the failures' error, not as a database that stopped answering.
   */
  @Test
  void aPollUnansweredAfterFailedOnesIsSaidWithTheirError() throws Exception {
    TableSchema items = table("items");
    FakeChangeSource fake = new FakeChangeSource().withTable(items, 1);
    CountDownLatch answer = new CountDownLatch(1);
    Paced source = new Paced(fake, Duration.ofMillis(50), ANSWER, answer);
    List<String> said = new CopyOnWriteArrayList<>();
    try (TailLoop loop = new TailLoop(source, stalenessSink(said))) {
      loop.startAndAwaitSnapshot();
      source.failFirst = new SQLException("Socket error"); // then the poll after it is silent
      source.silent = true;
      await().atMost(Duration.ofSeconds(10)).until(() -> !said.isEmpty());
      assertThat(said.get(0))
          .startsWith("the server has read no changes from the database since")
          .contains("(Socket error)");
      answer.countDown();
    }
  }

  /** The answer timeout of the tests of {@link TailLoop#problem}. */
  private static final Duration ANSWER = Duration.ofMillis(300);

  /**
   * {@code fake} with its own longest retry pause and answer timeout, whose polls wait for {@code
   * answer} while {@link #silent} (a read the database does not answer).
   */
  private static final class Paced implements ChangeSource {
    private final FakeChangeSource fake;
    private final Duration longestRetryPause;
    private final Duration answerTimeout;
    private final CountDownLatch answer;
    private final CountDownLatch waiting = new CountDownLatch(1);
    volatile boolean silent;

    /** What a poll that waited for {@code answer} throws then; null: it reads. */
    volatile SQLException failAfterSilence;

    /** What the next poll throws before anything else, once; null: nothing. */
    volatile SQLException failFirst;

    /** The whole reads its polls make; null: none. */
    volatile WholeReads wholeReads;

    Paced(
        FakeChangeSource fake,
        Duration longestRetryPause,
        Duration answerTimeout,
        CountDownLatch answer) {
      this.fake = fake;
      this.longestRetryPause = longestRetryPause;
      this.answerTimeout = answerTimeout;
      this.answer = answer;
    }

    @Override
    public List<TableSchema> tables() {
      return fake.tables();
    }

    @Override
    public void snapshot(SnapshotSink sink) {
      fake.snapshot(sink);
    }

    @Override
    public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
      SQLException first = failFirst;
      if (first != null) {
        failFirst = null;
        throw first;
      }
      if (silent) {
        waiting.countDown();
        answer.await();
        silent = false;
        if (failAfterSilence != null) {
          throw failAfterSilence;
        }
      }
      return fake.poll(maxWait);
    }

    @Override
    public void resync(String table) {
      fake.resync(table);
    }

    @Override
    public Duration longestRetryPause() {
      return longestRetryPause;
    }

    @Override
    public Duration answerTimeout() {
      return answerTimeout;
    }

    @Override
    public String wholeReadNow() {
      WholeReads reads = wholeReads;
      return reads == null ? null : reads.now();
    }

    @Override
    public void close() {
      fake.close();
    }
  }

  /**
   * A sink that drops the snapshot and changes and takes table states between polls, adding to
   * {@code said} each reason every table was said stale with, or "followed".
   */
  private static TailSink stalenessSink(List<String> said) {
    TailSink counting = countingSink(new AtomicInteger());
    return new TailSink() {
      @Override
      public SnapshotLoad snapshotLoad(List<TableSchema> tables) {
        return counting.snapshotLoad(tables);
      }

      @Override
      public Set<String> publish(CommittedBatch batch) {
        return Set.of();
      }

      @Override
      public boolean takesStalenessDuringPolls() {
        return true;
      }

      @Override
      public void publishStaleness(CommittedBatch states) {
        String reason = states.staleness().get(0).reason();
        said.add(reason == null ? "followed" : reason);
      }
    };
  }

  /** A sink that drops the snapshot and counts the batches that carry changes. */
  private static TailSink countingSink(AtomicInteger withChanges) {
    return new TailSink() {
      @Override
      public SnapshotLoad snapshotLoad(List<TableSchema> tables) {
        return new SnapshotLoad() {
          @Override
          public void row(TableSchema table, byte[] row) {}

          @Override
          public void install() {}
        };
      }

      @Override
      public Set<String> publish(CommittedBatch batch) {
        if (!batch.events().isEmpty()) { // not the staleness that failed reads bring
          withChanges.incrementAndGet();
        }
        return Set.of();
      }
    };
  }
}
