package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: an ALTER TABLE waits for every open transaction that has read its table, and every
 * later statement on that table queues behind it, a plain SELECT too. The tail reads the rows a
 * batch changed by key: when one of them was in a table with DDL queued, that read queued too, for
 * as long as the application's transaction stayed open, and no change of any other cached table
 * reached the clients, with nothing said (seen by hand with {@code tablecast serve}: a change of
 * another table not in {@code tablecast dump} for minutes, the tail's session "Waiting for table
 * metadata lock"). Now the read waits a second at most: that table alone is stale, its changed keys
 * are kept and read once the lock is granted.
 */
class MysqlDdlQueuedOnATableTest {

  @Test
  void otherTablesChangesFlowWhileDdlOnOneTableWaitsForAnOpenTransaction() throws Exception {
    TestDatabases.Isolated db = twoTables("ddl_queued");
    CompletableFuture<Void> alter;
    try (PolledSource tail = open(db);
        Connection reader = db.connect();
        Connection writer = db.connect()) {
      tail.poll();
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM altered").close(); // holds the table until it ends
      }
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        s.executeUpdate("INSERT INTO altered VALUES (2, 2)");
      }
      alter = CompletableFuture.runAsync(() -> db.execute("ALTER TABLE altered ADD COLUMN x INT"));
      await("the ALTER TABLE waits for the open transaction")
          .atMost(Duration.ofSeconds(30))
          .until(() -> alterWaits(db));
      writer.commit(); // a change of the table the ALTER waits on, for the tail to read
      db.execute("INSERT INTO other VALUES (7, 7)");

      await("another table's change delivered while the DDL waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("the table with DDL queued said stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("altered", "metadata lock"));
      assertThat(tail.events("altered")).as("its change is kept, not read").isZero();
      db.execute("INSERT INTO other VALUES (8, 8)");
      await("and the next").atMost(Duration.ofSeconds(15)).until(() -> tail.events("other") == 2);
      await("the sessions waiting for the lock named, the ALTER TABLE among them")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  RecentEvents.global().newestFirst().stream()
                      .anyMatch(
                          e ->
                              e.message().contains("Waiting for a metadata lock: [thread")
                                  && e.message().contains("ALTER TABLE altered ADD COLUMN x")));
      assertThat(tail.events("altered")).as("still kept").isZero();

      reader.commit(); // the ALTER runs, the lock is granted
      alter.get(30, TimeUnit.SECONDS);
      await("the kept change read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("altered") == 1);
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("altered", false));
      db.execute("UPDATE altered SET x = 5 WHERE id = 1");
      await("and followed").atMost(Duration.ofSeconds(30)).until(() -> tail.events("altered") == 2);
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  @Test
  void aReReadOfATableWithDdlQueuedWaitsBesideTheTail() throws Exception {
    TestDatabases.Isolated db = twoTables("ddl_queued_reread");
    CompletableFuture<Void> alter;
    try (PolledSource tail = open(db);
        Connection reader = db.connect()) {
      tail.poll();
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM altered").close();
      }
      alter = CompletableFuture.runAsync(() -> db.execute("ALTER TABLE altered ADD COLUMN x INT"));
      await("the ALTER TABLE waits").atMost(Duration.ofSeconds(30)).until(() -> alterWaits(db));
      tail.source.resync(db.table("altered")); // as a client's or the console's request does
      db.execute("INSERT INTO other VALUES (7, 7)");
      await("another table's change delivered while the re-read waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      assertThat(tail.saidStaleFor("altered", "metadata lock")).as("said stale").isTrue();

      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("re-read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 1));
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("altered", false));
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /** A schema with the tables {@code altered} (one row) and {@code other}. */
  private static TestDatabases.Isolated twoTables(String prefix) {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated(prefix);
    db.execute(
        "CREATE TABLE altered (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE other (id INT PRIMARY KEY, v INT)",
        "INSERT INTO altered VALUES (1, 1)");
    return db;
  }

  private static PolledSource open(TestDatabases.Isolated db) throws Exception {
    return PolledSource.open(
        PolledSource.config(db, List.of("altered", "other"), null, null),
        MicrometerServerMetrics.inMemory());
  }

  private static boolean alterWaits(TestDatabases.Isolated db) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                    + " WHERE STATE = 'Waiting for table metadata lock'"
                    + " AND INFO LIKE 'ALTER TABLE altered%'")) {
      rs.next();
      return rs.getInt(1) > 0;
    }
  }
}
