package io.tablecast.server.tail;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the tail loop says of itself: when it was last caught up with the outbox. */
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
    ChangeSource source =
        new ChangeSource() {
          @Override
          public List<TableSchema> tables() {
            return fake.tables();
          }

          @Override
          public void snapshot(SnapshotSink sink) {
            fake.snapshot(sink);
          }

          @Override
          public CommittedBatch poll(Duration maxWait)
              throws java.sql.SQLException, InterruptedException {
            return fake.poll(maxWait);
          }

          @Override
          public void resync(String table) {
            fake.resync(table);
          }

          @Override
          public Duration longestRetryPause() {
            return Duration.ofMillis(200);
          }

          @Override
          public void close() {
            fake.close();
          }
        };
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
