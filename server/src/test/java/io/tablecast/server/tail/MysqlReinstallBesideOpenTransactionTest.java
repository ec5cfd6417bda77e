package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: after an ALTER TABLE that changed a cached table's primary key, the server
 * reinstalls its capture triggers ({@code install_triggers}), whose DDL waits for every open
 * transaction that has read the table. The tail's thread did that itself: while an application's
 * transaction stayed open (up to the install's 10 minutes), no change of any other cached table
 * reached the clients, and nothing told them. Now the reinstall waits beside the tail; the altered
 * table is stale meanwhile, said so, and taken up once its triggers record the new key.
 */
class MysqlReinstallBesideOpenTransactionTest {

  @Test
  void otherTablesChangesFlowWhileAnAlteredTablesTriggersWaitForAnOpenTransaction()
      throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("reinstall_open");
    db.execute(
        "CREATE TABLE keyed (id INT PRIMARY KEY, code VARCHAR(20) NOT NULL, v INT)",
        "CREATE TABLE other (id INT PRIMARY KEY, v INT)",
        "INSERT INTO keyed VALUES (1, 'a', 1)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    try (PolledSource tail =
            PolledSource.open(
                PolledSource.config(db, List.of("keyed", "other"), null, Duration.ofMillis(200)),
                metrics);
        Connection reader = db.connect()) {
      db.execute("ALTER TABLE keyed DROP PRIMARY KEY, ADD PRIMARY KEY (code)");
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM keyed").close(); // holds the table until it ends
      }
      tail.poll();
      await("the altered table said stale while its triggers wait")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("keyed", true));
      db.execute("INSERT INTO other VALUES (7, 7)");
      await("another table's change delivered while the transaction is open")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("other") == 1);
      await("the reinstall said to wait for the open transaction")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  RecentEvents.global().newestFirst().stream()
                      .anyMatch(
                          e -> e.message().contains("waits for a lock on [" + db.table("keyed"))));
      db.execute("INSERT INTO other VALUES (8, 8)");
      await("another table's change delivered while the reinstall waits")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("other") == 2);
      assertThat(keyOf(tail.source)).as("not taken up before its triggers").containsExactly("id");

      reader.commit();
      await("the new key taken up")
          .atMost(Duration.ofSeconds(30))
          .until(() -> keyOf(tail.source).equals(List.of("code")));
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("keyed", false));
      assertThat(metrics.captureProblems())
          .as("the triggers replaced by the reinstall are no capture problem")
          .isZero();
    }
  }

  private static List<String> keyOf(ChangeSource source) {
    for (TableSchema t : source.tables()) {
      if (t.id().qualified().endsWith(".keyed")) {
        return t.primaryKey();
      }
    }
    throw new AssertionError("keyed is not cached");
  }
}
