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
 * A MySQL/MariaDB resync reads its table in the snapshot of the batch it comes with. DDL that
 * commits after that snapshot began (a partition added or emptied, as here, the table rebuilt)
 * makes the read fail: "Table definition has changed, please retry transaction". The resync was
 * then given up, "left to reconciliation": the mirrors kept the dropped partition's rows until a
 * reconciliation pass reached them, an hour later by default, and were never said stale (seen in CI
 * as {@code MysqlPartitionMaintenanceTest} timing out). Now the next read, in a snapshot of its
 * own, reads the table.
 */
class ResyncAcrossDdlTest {

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
    // no capture check while the test runs: it would find the dropped partition itself
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
}
