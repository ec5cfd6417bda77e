package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: with {@code install_triggers}, the capture check repairs what a cached table's
 * capture lacks (here the triggers of an inheritance child created while serving), and the repair's
 * DDL waits for the transactions open on the relation. The tail's thread did that itself, at every
 * check (each second), for up to 2 s a try: while an application's transaction stayed open, every
 * change of every cached table waited behind it, two seconds out of three. Now a repair that cannot
 * take its locks at once waits beside the tail, naming the transaction it waits for; the table is
 * stale meanwhile, and re-read once its capture is complete.
 */
class PgRepairBesideOpenTransactionTest {

  @Test
  void theTailReadsOnWhileARepairWaitsForAnOpenTransaction() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("repair_open");
    db.execute(
        "CREATE TABLE items (id int PRIMARY KEY, v int)",
        "CREATE TABLE other (id int PRIMARY KEY, v int)",
        "INSERT INTO items VALUES (1, 1)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    try (PolledSource tail =
            PolledSource.open(
                PolledSource.config(db, List.of("items", "other"), null, Duration.ofMillis(100)),
                metrics);
        Connection writer = db.connect()) {
      // a child joins the table, and an application's transaction writes to it before the server
      // has put its triggers: it holds the lock their DDL needs until it ends
      db.execute("CREATE TABLE items_more () INHERITS (items)");
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        s.execute("INSERT INTO items_more VALUES (2, 2)");
      }
      tail.poll();
      await("stale while its capture is incomplete")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("items", true));
      for (int i = 0; i < 4; i++) { // a few more checks while the transaction stays open
        db.execute("INSERT INTO other VALUES (" + i + ", " + i + ")");
        int seen = i + 1;
        await("another table's change delivered while the repair waits")
            .atMost(Duration.ofSeconds(30))
            .until(() -> tail.events("other") == seen);
        Thread.sleep(500);
      }
      assertThat(tail.slowestPoll())
          .as("no read of the tail waits for the application's transaction")
          .isLessThan(DdlLocks.LOCK_WAIT);
      await("the repair said to wait for the open transaction, naming it")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  RecentEvents.global().newestFirst().stream()
                      .anyMatch(
                          e ->
                              e.message().contains("waits for a lock on [" + db.table("items"))
                                  && e.message().contains("pid ")));

      writer.commit();
      await("re-read once the repair is done, with the row written meanwhile")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole("items", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 2));
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("items", false));
      db.execute("INSERT INTO items_more VALUES (3, 3)");
      await("the child's changes captured")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("items") == 1);
      assertThat(metrics.captureProblems())
          .as("a new child's triggers are expected work, also when they wait")
          .isZero();
      assertThat(tail.failures).as("reads failed").isEmpty();
    }
  }
}
