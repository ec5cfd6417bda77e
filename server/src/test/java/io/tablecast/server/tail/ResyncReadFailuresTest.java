package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A MySQL/MariaDB resync (a table read again whole: asked for by a client, or after partition
 * maintenance, an ALTER TABLE, a trigger repaired) whose read fails. It was given up, "left to
 * reconciliation": the mirrors lacked what it was for, up to {@code reconcile_interval} (1 h by
 * default), and were never said stale.
 */
class ResyncReadFailuresTest {

  /**
   * DDL that commits after the batch's snapshot began (a partition added or emptied, as here, the
   * table rebuilt) fails the read: "Table definition has changed, please retry transaction" (seen
   * here in a run of {@code MysqlPartitionMaintenanceTest}, which timed out). Now the next read, in
   * a snapshot of its own, reads the table.
   */
  @Test
  void mysqlAResyncWhoseTableChangedAfterItsSnapshotBeganIsReadAgain() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("resync_ddl");
    String readings = db.table("readings");
    db.execute(
        "CREATE TABLE "
            + readings
            + " (day INT, sensor INT, v INT, PRIMARY KEY (day, sensor))"
            + " PARTITION BY RANGE (day) (PARTITION d1 VALUES LESS THAN (2),"
            + " PARTITION d2 VALUES LESS THAN (3))",
        "INSERT INTO " + readings + " VALUES (1, 1, 10), (2, 1, 20)");
    // no capture check while the test runs: it would find the emptied partition itself
    try (PolledSource tail =
            PolledSource.open(
                PolledSource.config(
                    db, List.of("readings"), Duration.ofHours(1), Duration.ofHours(1)),
                MicrometerServerMetrics.inMemory());
        Connection reader = db.connect()) {
      tail.poll();
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM " + readings).close(); // the DROP waits for it
      }
      String drop = "ALTER TABLE " + readings + " TRUNCATE PARTITION d1"; // the oldest day emptied
      CompletableFuture<Void> dropped = CompletableFuture.runAsync(() -> db.execute(drop));
      await("the TRUNCATE PARTITION waits")
          .atMost(Duration.ofSeconds(30))
          .until(() -> DdlQueuedOnATableTest.waitsForALock(db, drop));

      tail.source.resync(readings);
      Thread.sleep(300); // the tail's read has begun its snapshot, and waits for the table's lock
      reader.commit(); // the TRUNCATE PARTITION runs first, then the read is granted the lock
      dropped.get(30, TimeUnit.SECONDS);

      await("the table read whole, without the emptied partition's rows")
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  tail.readWhole(
                      "readings", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 1));
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /**
   * A resync whose read fails for another reason (here a row too large to hand over as JSON; in
   * production a DBA's {@code KILL QUERY} of a long read) was given up, "left to reconciliation":
   * the mirrors lacked what the re-read was for, with nothing said. Now the table is stale, naming
   * why, and each capture check tries the re-read again until it succeeds.
   */
  @Test
  void mysqlAResyncThatFailsLeavesTheTableStaleUntilARetryReadsIt() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("resync_fails");
    String docs = db.table("docs");
    db.execute(
        "CREATE TABLE " + docs + " (id INT PRIMARY KEY, body LONGTEXT, flags BIT(8) NULL)",
        "INSERT INTO " + docs + " VALUES (1, 'a', NULL), (2, 'b', NULL)");
    try (PolledSource tail =
        PolledSource.open(
                PolledSource.config(
                    db, List.of("docs"), Duration.ofHours(1), Duration.ofSeconds(1)),
                MicrometerServerMetrics.inMemory())
            .poll()) {
      // its JSON form (the BIT column has rows read as JSON_OBJECT) outgrows max_allowed_packet
      db.execute("UPDATE " + docs + " SET body = REPEAT('\"', 9000000) WHERE id = 2");
      await("the row refused").atMost(Duration.ofSeconds(15)).until(() -> tail.staleNow("docs"));
      tail.source.resync(docs);
      await("the failed re-read said")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("docs", "its re-read failed"));

      db.execute("UPDATE " + docs + " SET body = 'small' WHERE id = 2");
      await("read again at a capture check, once it can be")
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  tail.readWhole("docs", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 2));
      await("followed again").atMost(Duration.ofSeconds(15)).until(() -> !tail.staleNow("docs"));
    }
  }
}
