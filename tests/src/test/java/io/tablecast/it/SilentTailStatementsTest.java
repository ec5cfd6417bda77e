package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The tail's statements besides its read of changes, on a connection that goes silent right after
 * one was sent (the database's host gone without a word, a firewall that forgot the connection): on
 * the tail's thread PostgreSQL's capture check and its first repair of a missing trigger, and
 * MySQL/MariaDB's lock probes of an outbox gap, each given up on the database's word as the read
 * is; beside it, a reconciliation range, given up after its bound. Each on the old code left every
 * table stale for ever, or reconciliation stopped, without a word. The silence is put right after
 * the statement's text passes the proxy ({@link CuttableProxy#stallAfterSending}): the database
 * runs it, and its answer is lost. The background threads' statements: {@code
 * SilentBackgroundConnectionsTest}.
 */
class SilentTailStatementsTest {
  private static final List<String> DDL =
      List.of("CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL)");

  /**
   * PostgreSQL's capture check, on the tail's thread before its read of the outbox: had it waited
   * for ever, every table would have stayed stale, rows written meanwhile never arriving.
   */
  @Test
  void withPostgresqlACaptureCheckWhoseAnswerWasLostIsGivenUpAndTheTablesFollowedAgain()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_pg_check", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      // the statement's text on the wire every time (else a name once prepared): the proxy finds it
      ServerSetups.atUrl(
          p, ServerSetups.urlThrough(p, proxy) + "&prepareThreshold=0", Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_pg_check"), "items");
      p.db.execute("INSERT INTO items VALUES (1, 1)");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.size() == 1);
      CountDownLatch silenced = proxy.stallAfterSending("WITH RECURSIVE fns AS");
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a capture check silenced").isTrue();
      p.db.execute("INSERT INTO items VALUES (2, 2)");
      await()
          .alias("the row written after the capture check whose answer was lost")
          .atMost(Duration.ofSeconds(45))
          .until(() -> items.size() == 2);
    }
  }

  /**
   * PostgreSQL's repair of a trigger found missing, tried first on the tail's thread: had it waited
   * for ever, every table would have stayed stale, rows written meanwhile never arriving.
   */
  @Test
  void withPostgresqlACaptureRepairWhoseAnswerWasLostIsGivenUpAndMadeAgain() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_pg_repair", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_pg_repair"), "items");
      p.db.execute("INSERT INTO items VALUES (1, 1)");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.size() == 1);
      CountDownLatch silenced = proxy.stallAfterSending("CREATE TRIGGER");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) { // all at once: the repair locks the table
        c.setAutoCommit(false);
        for (String trigger : triggersOf(p.db, "items")) {
          s.execute("DROP TRIGGER " + trigger + " ON items");
        }
        c.commit();
      }
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a repair silenced").isTrue();
      // the writer waits for the lock the repair's transaction holds until it is given up
      CompletableFuture<Void> written =
          CompletableFuture.runAsync(() -> p.db.execute("INSERT INTO items VALUES (2, 2)"));
      await()
          .alias("the row written after the repair whose answer was lost")
          .atMost(Duration.ofSeconds(75))
          .until(() -> items.size() == 2);
      written.get(10, TimeUnit.SECONDS);
      assertThat(triggersOf(p.db, "items")).as("repaired").isNotEmpty();
    }
  }

  /**
   * MySQL/MariaDB's lock probe of an outbox gap, on the tail's thread (a user without PROCESS): had
   * it waited for ever, every table would have stayed stale, the rows never arriving.
   */
  @Test
  void withMysqlALockProbeWhoseAnswerWasLostIsGivenUpAndTheTablesFollowedAgain() throws Exception {
    Isolated db = Kind.MYSQL.isolated("silent_probe");
    String user = "tc_silent_" + ProcessHandle.current().pid();
    db.execute(
        "DROP USER IF EXISTS '" + user + "'@'%'",
        "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'sp-pw'",
        "GRANT ALL ON `" + db.schema() + "`.* TO '" + user + "'@'%'");
    try (Pipeline p = Pipeline.create(db, DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      String withoutProcess =
          ServerSetups.urlThrough(p, proxy)
              .replaceAll("user=[^&]*", "user=" + user)
              .replaceAll("password=[^&]*", "password=sp-pw");
      ServerSetups.atUrl(p, withoutProcess, Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_probe"), "items");
      CountDownLatch silenced =
          proxy.stallAfterSending(
              "SELECT id FROM `" + db.schema() + "`.`tablecast_outbox` WHERE id >= ");
      try (Connection slow = db.connect();
          Statement s = slow.createStatement()) {
        slow.setAutoCommit(false);
        s.execute("INSERT INTO items VALUES (1, 1)"); // holds the lowest outbox id: a gap
        p.db.execute("INSERT INTO items VALUES (2, 2)");
        assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a lock probe silenced").isTrue();
        slow.commit();
      }
      await()
          .alias("the rows written around the lock probe whose answer was lost")
          .atMost(Duration.ofSeconds(45))
          .until(() -> items.size() == 2);
    } finally {
      db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }
  }

  /**
   * A reconciliation range, read on its own thread in the snapshot of an outbox read: had it waited
   * for ever, reconciliation would have stopped without a word (no range is read while one is in
   * flight), and what it is there to find, a change no trigger recorded, never been repaired.
   * PostgreSQL only: the range's thread and its bound are the same for both databases.
   */
  @Test
  void withPostgresqlAReconciliationRangeWhoseAnswerWasLostIsGivenUpAndDriftStillRepaired()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_range", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      CountDownLatch silenced = proxy.stallAfterSending("ORDER BY t.\"id\" LIMIT "); // a range
      ServerSetups.atUrl( // a range every 100 ms; the statement's text on the wire every time
          p, ServerSetups.urlThrough(p, proxy) + "&prepareThreshold=0", Duration.ofSeconds(1));
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_range"), "items");
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a range's read silenced").isTrue();
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) { // a change no trigger sees, nor the capture check
        c.setAutoCommit(false);
        s.execute("ALTER TABLE items DISABLE TRIGGER USER");
        s.execute("INSERT INTO items VALUES (1, 1)");
        s.execute(TriggerStateTest.ENABLE_ALWAYS);
        c.commit();
      }
      await()
          .alias("the row reconciliation found after the range whose answer was lost")
          .atMost(Duration.ofSeconds(45))
          .until(() -> items.size() == 1);
      p.expectRepairs(1);
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) { // the range's session, and its lock, ended too
        c.setAutoCommit(false);
        s.execute("SET LOCAL lock_timeout = '20s'");
        s.execute("LOCK TABLE items IN ACCESS EXCLUSIVE MODE"); // as an ALTER TABLE would
        c.rollback();
      }
    }
  }

  /**
   * MySQL/MariaDB: a reconciliation range given up without an answer has its session ended on the
   * database's side, and the metadata lock its transaction holds on the table with it, once it has
   * waited for its client for half the range's bound: closing the connection, as the driver does
   * when the answer does not come within the bound, ends nothing there. Before, the session stayed
   * until {@code wait_timeout} (8 hours), and an {@code ALTER TABLE} of the table queued behind it,
   * every writer of the table behind that (watched: the table's write lock not granted in 30 s).
   */
  @Test
  void withMysqlTheSessionOfAReconciliationRangeWhoseAnswerWasLostIsEndedWithItsLock()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "silent_range_mdl", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      p.sql("INSERT INTO items VALUES (1, 1)");
      CountDownLatch silenced = proxy.stallAfterSending("ORDER BY t.`id` LIMIT "); // a range
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ofSeconds(1));
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a range's read silenced").isTrue();
      long began = System.nanoTime();
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        s.execute("SET SESSION lock_wait_timeout = 30");
        s.execute("LOCK TABLES items WRITE"); // as an ALTER TABLE would
        s.execute("UNLOCK TABLES");
      }
      System.out.printf(
          "SilentTailStatementsTest: the range's lock let go %d ms after its answer was lost%n",
          (System.nanoTime() - began) / 1_000_000);
    }
  }

  /** The names of the triggers on {@code table} (PostgreSQL). */
  private static List<String> triggersOf(Isolated db, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                    + table
                    + "'::regclass AND NOT tgisinternal")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
