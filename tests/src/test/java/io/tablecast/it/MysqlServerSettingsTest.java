package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A MariaDB server configured as operators configure theirs, not as our other tests' server is: its
 * host in a zone of its own (Europe/Berlin) and the server's {@code default-time-zone} UTC, which
 * is the advice everywhere; a global {@code sql_mode} of {@code ANSI} (double quotes for
 * identifiers, {@code ||} to concatenate) with {@code NO_BACKSLASH_ESCAPES}; table names folded to
 * lower case ({@code lower_case_table_names = 1}, as on Windows and macOS), which hid a {@code
 * TRUNCATE} of a table configured in capitals (the old code: its rows stayed in the mirror); and
 * {@code innodb_snapshot_isolation} (on by default from MariaDB 11.6), {@code autocommit} off and
 * {@code SERIALIZABLE} by default (those three probed, nothing to fix). And limits on every
 * session's statements: a global {@code sql_select_limit} cut the snapshot to its first rows
 * without a word and hid the capture triggers from the capture check (the old code, by hand: a
 * snapshot of 2 of a table's 5 rows, and an ERROR that its triggers were missing), and {@code
 * max_join_size} refused a catalog read, so the server did not start (the old code in this test:
 * {@code The SELECT would examine more than MAX_JOIN_SIZE rows}). The server's sessions used to
 * take their settings from the database: it read {@code innodb_trx.trx_started} (the host's local
 * time) as UTC, so a writer open across a gap seemed to have begun an hour later and its late
 * commit was dropped as rolled back (the old code: {@code expected {1="late", 2="early"} but was
 * {2="early"}}); and the catalog printed a JSON column's check with double quotes, so the column
 * was taken for text. And a global {@code wait_timeout} of seconds closed the server's idle pool
 * connections under it.
 */
class MysqlServerSettingsTest {

  private static LocalMariadb server;

  @BeforeAll
  static void start() throws Exception {
    server =
        LocalMariadb.startInZone(
            "settings",
            1,
            "Europe/Berlin",
            "--default-time-zone=+00:00",
            "--sql-mode=ANSI,NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES",
            "--lower-case-table-names=1",
            "--innodb-snapshot-isolation=ON",
            "--autocommit=0",
            "--transaction-isolation=SERIALIZABLE");
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aWriterOpenAcrossAGapIsWaitedForWhenTheServersZoneIsNotItsHosts() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            database("zones"),
            List.of("CREATE TABLE rates (id int PRIMARY KEY, name varchar(40))"),
            "rates")) {
      p.startServer(Duration.ZERO, Duration.ofSeconds(1)); // no reconciliation to hide a loss
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("zones"), "rates");
      try (Connection late = DriverManager.getConnection(p.db.jdbcUrl());
          Statement s = late.createStatement()) {
        late.setAutoCommit(false);
        s.execute("INSERT INTO rates VALUES (1, 'late')"); // takes outbox id 1, commits last
        p.sql("INSERT INTO rates VALUES (2, 'early')"); // outbox id 2: id 1 is a gap
        await().atMost(Duration.ofSeconds(10)).until(() -> m.size() == 1);
        Thread.sleep(1500); // the tail looks at innodb_trx several times meanwhile
        late.commit();
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(names(m)).isEqualTo(Map.of(1, "late", 2, "early")));
    }
  }

  @Test
  void aTruncateIsFoundWhenTheServerFoldsTableNamesToLowerCase() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            database("Folded"),
            List.of(
                "CREATE TABLE Rates (id int PRIMARY KEY, name varchar(40))",
                "INSERT INTO Rates VALUES (1, 'a'), (2, 'b')"),
            "Rates")) {
      p.startServer(Duration.ZERO, Duration.ofSeconds(1)); // the capture check alone
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("folded"), "Rates");
      Thread.sleep(1500); // the capture check has seen the table's InnoDB id
      p.sql("TRUNCATE TABLE Rates", "INSERT INTO Rates VALUES (3, 'c')");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(names(m)).isEqualTo(Map.of(3, "c")));
    }
  }

  @Test
  void limitsOnTheServersSelectsAndUpdatesLeaveItsReadsWhole() throws Exception {
    server.execute(
        "SET GLOBAL sql_select_limit = 2", // every SELECT of a new session returns 2 rows at most
        "SET GLOBAL max_join_size = 3",
        "SET GLOBAL sql_safe_updates = 1");
    try (Pipeline p =
        Pipeline.create(
            database("limits"),
            List.of(
                "CREATE TABLE rates (id int PRIMARY KEY, name varchar(40))",
                "INSERT INTO rates VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')"),
            "rates")) {
      p.startServer(Duration.ZERO, Duration.ofSeconds(1)); // no reconciliation to hide a loss
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("limits"), "rates");
      assertThat(names(m)).isEqualTo(Map.of(1, "a", 2, "b", 3, "c", 4, "d"));
      p.sql("UPDATE rates SET name = 'x' WHERE id = 4", "INSERT INTO rates VALUES (5, 'e')");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(names(m)).isEqualTo(Map.of(1, "a", 2, "b", 3, "c", 4, "x", 5, "e")));
      Thread.sleep(2500); // two capture checks: each lists the table's triggers
      assertThat(p.server().metrics().captureProblems()).isZero();
    } finally {
      server.execute(
          "SET GLOBAL sql_select_limit = DEFAULT",
          "SET GLOBAL max_join_size = DEFAULT",
          "SET GLOBAL sql_safe_updates = DEFAULT");
    }
  }

  @Test
  void jsonChecksCascadesAndBackslashesAreCapturedUnderAnsiQuotesAndNoBackslashEscapes()
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE docs (id varchar(20) PRIMARY KEY, body JSON, note varchar(40),"
                + " shout varchar(60) AS (UPPER(note) || '!') VIRTUAL)",
            "CREATE TABLE parents (id int PRIMARY KEY)",
            "CREATE TABLE children (id int PRIMARY KEY, parent int NOT NULL,"
                + " FOREIGN KEY (parent) REFERENCES parents (id) ON DELETE CASCADE)",
            "INSERT INTO parents VALUES (1), (2)",
            "INSERT INTO children VALUES (10, 1), (20, 2)",
            "INSERT INTO docs (id, body, note) VALUES ('a\\b', '{\"k\": \"v\\\\w\"}', 'it''s')");
    try (Pipeline p = Pipeline.create(database("modes"), ddl, "docs", "children")) {
      p.startServer();
      TableMirror<Map<String, Object>> docs = p.readyMirror(p.client("modes"), "docs");
      TableMirror<Map<String, Object>> children = p.readyMirror(p.client("kids"), "children");
      assertThat(docs.columns())
          .filteredOn(c -> c.name().equals("body"))
          .extracting(Column::type)
          .containsExactly(ColumnType.JSON);
      p.sql(
          "INSERT INTO docs (id, body, note) VALUES ('c\\d', '[1, \"x\\\\y\"]', 'back\\slash')",
          "UPDATE docs SET note = 'changed' WHERE id = 'a\\b'",
          "DELETE FROM parents WHERE id = 1"); // the cascade removes child 10
      p.awaitMirrorEqualsTable(docs, "docs");
      p.awaitMirrorEqualsTable(children, "children");
      assertThat(children.size()).isEqualTo(1);
      assertThat(docs.get("c\\d").get("note")).isEqualTo("back\\slash");
      assertThat(p.server().metrics().captureProblems())
          .as("capture problems the capture check found")
          .isZero();
    }
  }

  /**
   * A global {@code wait_timeout} of seconds, as DBAs set one to reap the connections of leaking
   * applications: the database closed the server's idle pool connections under it, and each next
   * use found its connection dead (the old code: a connection of the server's gone after 4 s, and
   * HikariCP's "Failed to validate connection ... consider using a shorter maxLifetime value" on
   * its next use, by the pruner or the tail).
   */
  @Test
  void aShortGlobalWaitTimeoutDoesNotCloseTheServersIdleConnections() throws Exception {
    server.execute("SET GLOBAL wait_timeout = 2");
    try (Pipeline p =
        Pipeline.create(
            database("waits"),
            List.of("CREATE TABLE rates (id int PRIMARY KEY, name varchar(40))"),
            "rates")) {
      long closedBefore = abortedClients();
      p.startServer();
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("waits"), "rates");
      Thread.sleep(6000); // the pruner and the consumer heartbeat take an idle connection meanwhile
      p.sql("INSERT INTO rates VALUES (1, 'a')");
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(names(m)).isEqualTo(Map.of(1, "a")));
      assertThat(abortedClients() - closedBefore)
          .as("connections the database closed under the server (Aborted_clients)")
          .isZero();
    } finally {
      server.execute("SET GLOBAL wait_timeout = DEFAULT");
    }
  }

  /**
   * The connections the database has closed without the client closing them, {@code wait_timeout}
   * expiries among them (status {@code Aborted_clients}).
   */
  private static long abortedClients() throws Exception {
    try (Connection c = DriverManager.getConnection(server.jdbcUrl("mysql"));
        Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Aborted_clients'")) {
      rs.next();
      return rs.getLong(2);
    }
  }

  private static TestDatabases.Isolated database(String name) throws Exception {
    server.execute("CREATE DATABASE " + name);
    return new TestDatabases.Isolated(Kind.MYSQL, name, server.jdbcUrl(name));
  }

  private static Map<Object, Object> names(TableMirror<Map<String, Object>> m) {
    Map<Object, Object> rows = new TreeMap<>();
    m.rows().forEach(r -> rows.put(((Number) r.get("id")).intValue(), r.get("name")));
    return rows;
  }
}
