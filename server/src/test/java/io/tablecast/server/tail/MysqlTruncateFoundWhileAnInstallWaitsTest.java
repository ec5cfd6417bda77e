package io.tablecast.server.tail;

import static org.awaitility.Awaitility.await;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: a TRUNCATE fires no trigger; the capture check finds it by the table's new id. The
 * same check installs missing triggers (with {@code install_triggers}), whose DDL may wait for an
 * application's open transaction, up to 10 minutes: on one thread, the TRUNCATE of another table
 * waited that long to be found, its mirrors holding the rows meanwhile without a word. Now the
 * looks for what fires no trigger run beside the installs.
 */
class MysqlTruncateFoundWhileAnInstallWaitsTest {

  @Test
  void aTruncateIsFoundWhileAnInstallWaitsForAnOpenTransaction() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("truncate_install");
    db.execute(
        "CREATE TABLE held (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE emptied (id INT PRIMARY KEY, v INT)",
        "INSERT INTO held VALUES (1, 1)",
        "INSERT INTO emptied VALUES (1, 1), (2, 2)");
    try (PolledSource tail =
            PolledSource.open(
                    PolledSource.config( // no reconciliation pass finds it here
                        db,
                        List.of("held", "emptied"),
                        Duration.ofHours(1),
                        Duration.ofMillis(200)),
                    MicrometerServerMetrics.inMemory())
                .poll();
        Connection reader = db.connect()) {
      reader.setAutoCommit(false);
      String waits = "waits for a lock on [" + db.table("held");
      for (int tries = 0;
          RecentEvents.global().newestFirst().stream().noneMatch(e -> e.message().contains(waits));
          tries++) {
        // a trigger of held dropped, then an application's transaction reads held before the
        // server has put it back: the install waits for it (the server may put it back between
        // the two statements, then this goes round again)
        reader.rollback();
        db.execute("DROP TRIGGER `" + db.triggerNames("held").get(0) + "`");
        try (Statement s = reader.createStatement()) {
          s.executeQuery("SELECT * FROM held").close();
        }
        Thread.sleep(2500); // the install's first lock wait, 2 s
        if (tries == 5) {
          throw new AssertionError("the install never waited for the open transaction");
        }
      }
      db.execute("TRUNCATE TABLE emptied");
      await("emptied re-read while the install waits, its rows gone")
          .atMost(Duration.ofSeconds(20))
          .until(() -> tail.readWhole("emptied", CommittedBatch.Purpose.RESYNC, List::isEmpty));
      reader.rollback();
    }
  }
}
