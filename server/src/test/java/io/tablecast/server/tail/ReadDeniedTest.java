package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cached table the server's user may no longer read, while it serves: its {@code SELECT} revoked,
 * or (the same to the server) the table created anew by a migration without the grant, under the
 * least-privilege serving grants of docs/SECURITY.md. The tail reads some tables itself
 * (MySQL/MariaDB: the rows a batch changed; both: a table read again whole, and on PostgreSQL the
 * lock of a reconciliation range's table). On PostgreSQL the refused read failed every poll, and no
 * change of any cached table reached the clients until the grant was back (seen by hand: "reading
 * changes failed ... permission denied for table items", retried for ever); on MySQL/MariaDB the
 * table was said to be "dropped or renamed away". Now the table alone waits, with the grant it
 * lacks named, and is followed again once it may be read.
 */
class ReadDeniedTest {

  @Test
  void mysqlChangedRowsOfATableTheUserMayNotReadAreKeptWhileOtherTablesFlow() throws Exception {
    TestDatabases.Isolated db = twoTables(Kind.MYSQL, "read_denied");
    String user = user(db);
    try (PolledSource tail = open(db, user, null)) {
      tail.poll();
      db.execute("REVOKE SELECT ON " + db.table("denied") + " FROM '" + user + "'@'%'");
      db.execute("INSERT INTO " + db.table("denied") + " VALUES (2, 2)");
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");

      await("another table's change delivered")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("the table said stale, naming the grant it lacks")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("denied", "the server's user may not read"));
      assertThat(logged("cannot be read by the server's user", "SELECT command denied")).isTrue();
      db.execute("INSERT INTO " + db.table("other") + " VALUES (8, 8)");
      await("and the next").atMost(Duration.ofSeconds(15)).until(() -> tail.events("other") == 2);

      db.execute("GRANT SELECT ON " + db.table("denied") + " TO '" + user + "'@'%'");
      await("the change made meanwhile read once the user may read the table")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.events("denied") == 1
                      || tail.readWhole(
                          "denied", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 2));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("denied"));
      long before = tail.events("denied");
      db.execute("UPDATE " + db.table("denied") + " SET v = 5 WHERE id = 1");
      await("and followed")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("denied") == before + 1);
    } finally {
      db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }
  }

  @Test
  void postgresqlTableTheUserMayNotReadWaitsForItsReReadWhileOtherTablesFlow() throws Exception {
    TestDatabases.Isolated db = twoTables(Kind.POSTGRESQL, "read_denied");
    String user = user(db);
    try (PolledSource tail = open(db, user, Duration.ofSeconds(1))) { // a range every 100 ms
      tail.poll();
      db.execute("REVOKE SELECT ON " + db.table("denied") + " FROM " + user);
      Thread.sleep(1_000); // ten ranges' time: one of the table has been tried
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      await("another table's change delivered while the table's reconciliation waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("the grant it lacks named")
          .atMost(Duration.ofSeconds(15))
          .until(() -> logged("cannot be read by the server's user", "permission denied"));
      db.execute("INSERT INTO " + db.table("denied") + " VALUES (2, 2)");
      await("its changes still delivered: they come from the outbox")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("denied") == 1);
      assertThat(tail.staleNow("denied"))
          .as("only its reconciliation waited: its mirrors lack nothing")
          .isFalse();

      tail.source.resync(db.table("denied")); // as a client's or the console's request does
      await("a re-read that cannot be done makes it stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("denied", "the server's user may not read"));
      db.execute("INSERT INTO " + db.table("other") + " VALUES (8, 8)");
      await("the others flow on")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 2);

      db.execute("GRANT SELECT ON " + db.table("denied") + " TO " + user);
      await("re-read once the user may read it")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "denied", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 2));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("denied"));
      await("and reconciled again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.readWhole("denied", CommittedBatch.Purpose.RECONCILE, rows -> true));
    } finally {
      db.execute("DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user);
    }
  }

  @Test
  void postgresqlWholeReadAfterAFailoverLeavesATableTheUserMayNotReadOut() throws Exception {
    wholeReadAgainLeavesADeniedTableOut(Kind.POSTGRESQL);
  }

  @Test
  void mysqlWholeReadAfterAFailoverLeavesATableTheUserMayNotReadOut() throws Exception {
    wholeReadAgainLeavesADeniedTableOut(Kind.MYSQL);
  }

  /**
   * Every table is read whole again after the source met another database instance (a failover, a
   * restore, a restart). One table the server's user may not read failed that read at every try,
   * and no change of any table reached the clients until the grant was back.
   */
  private static void wholeReadAgainLeavesADeniedTableOut(Kind kind) throws Exception {
    TestDatabases.Isolated db = twoTables(kind, "denied_whole");
    String user = user(db);
    try (PolledSource tail = open(db, user, Duration.ofHours(1))) {
      tail.poll();
      db.execute(
          "REVOKE SELECT ON "
              + db.table("denied")
              + " FROM "
              + (kind == Kind.MYSQL ? "'" + user + "'@'%'" : user),
          "INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      tail.meetAnotherInstance();
      await("the other table read whole again")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  tail.readWhole("other", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 1));
      assertThat(
              tail.saidStaleFor(
                  "denied",
                  kind == Kind.MYSQL
                      ? "can no longer see it" // MySQL hides from its catalog what one may not read
                      : "the server's user may not read"))
          .as("said stale with the read that left it out")
          .isTrue();
      db.execute("INSERT INTO " + db.table("other") + " VALUES (8, 8)");
      await("its changes flow on")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") >= 1);

      db.execute("INSERT INTO " + db.table("denied") + " VALUES (2, 2)");
      db.execute(
          "GRANT SELECT ON "
              + db.table("denied")
              + " TO "
              + (kind == Kind.MYSQL ? "'" + user + "'@'%'" : user));
      await("read again once the user may read it")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "denied", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 2));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("denied"));
    } finally {
      if (kind == Kind.MYSQL) {
        db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
      } else {
        db.execute("DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user);
      }
    }
  }

  /** A schema with the tables {@code denied} (one row) and {@code other}, captured. */
  private static TestDatabases.Isolated twoTables(Kind kind, String prefix) throws Exception {
    TestDatabases.Isolated db = kind.isolated(prefix);
    db.execute(
        "CREATE TABLE " + db.table("denied") + " (id int PRIMARY KEY, v int)",
        "CREATE TABLE " + db.table("other") + " (id int PRIMARY KEY, v int)",
        "INSERT INTO " + db.table("denied") + " VALUES (1, 1)");
    try (TriggerInstaller admin =
        TriggerInstaller.connect(PolledSource.config(db, List.of("denied", "other"), null, null))) {
      admin.install(); // as the administrator
    }
    return db;
  }

  private static String user(TestDatabases.Isolated db) {
    String s = db.schema().replaceAll("[^a-z0-9]", "");
    return "tc_rd_" + s.substring(Math.max(0, s.length() - 16));
  }

  /**
   * A source of the two tables reading as {@code user}, with the serving grants of
   * docs/SECURITY.md.
   */
  private static PolledSource open(TestDatabases.Isolated db, String user, Duration reconcile)
      throws Exception {
    String url;
    if (db.kind() == Kind.MYSQL) {
      String to = " TO '" + user + "'@'%'";
      db.execute(
          "DROP USER IF EXISTS '" + user + "'@'%'",
          "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'serve-pw'",
          "GRANT SELECT ON " + db.table("denied") + to,
          "GRANT SELECT ON " + db.table("other") + to,
          "GRANT SELECT, DELETE ON " + db.table("tablecast_outbox") + to,
          "GRANT SELECT, INSERT, UPDATE, DELETE ON " + db.table("tablecast_consumers") + to,
          "GRANT PROCESS ON *.*" + to,
          "GRANT SLAVE MONITOR ON *.*" + to);
      url =
          db.jdbcUrl()
              .replaceAll("user=[^&]*", "user=" + user)
              .replaceAll("password=[^&]*", "password=serve-pw");
    } else {
      db.execute(
          "DROP ROLE IF EXISTS " + user,
          "CREATE ROLE " + user + " LOGIN PASSWORD 'serve-pw'",
          "GRANT USAGE ON SCHEMA \"" + db.schema() + "\" TO " + user,
          "GRANT SELECT ON "
              + String.join(
                  ", ", db.table("denied"), db.table("other"), db.table("tablecast_outbox"))
              + " TO "
              + user,
          "GRANT DELETE ON " + db.table("tablecast_outbox") + " TO " + user,
          "GRANT SELECT, INSERT, UPDATE, DELETE ON "
              + db.table("tablecast_consumers")
              + " TO "
              + user);
      url = db.jdbcUrl().replaceAll("user=[^&]*", "user=" + user);
      url =
          url.contains("password=")
              ? url.replaceAll("password=[^&]*", "password=serve-pw")
              : url + "&password=serve-pw";
    }
    return PolledSource.open(
        new SourceConfig(
            url,
            null,
            null,
            List.of(db.table("denied"), db.table("other")),
            false,
            null,
            null,
            reconcile,
            null),
        MicrometerServerMetrics.inMemory());
  }

  private static boolean logged(String text, String andText) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.message().contains(text) && e.message().contains(andText));
  }
}
