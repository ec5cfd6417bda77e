package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Transactions committed in two phases, as transaction managers (JTA: Atomikos, Narayana) do: a
 * prepared transaction holds its changes, and the outbox rows its triggers wrote, for as long as
 * the coordinator takes to commit it, while later transactions commit around it. Its changes must
 * reach the mirrors when it commits, however late, and never before.
 */
class TwoPhaseCommitTest {

  @Test
  void aMariadbXaTransactionPreparedLongBeforeItCommitsReachesTheMirrorWhenItCommits()
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE accounts (id int PRIMARY KEY, name varchar(20))",
            "INSERT INTO accounts VALUES (1, 'a')");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "xa", ddl, "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("xa"), "accounts");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        s.execute("XA START 'tc-xa-1'");
        s.execute("INSERT INTO accounts VALUES (2, 'prepared')");
        s.execute("UPDATE accounts SET name = 'prepared' WHERE id = 1");
        s.execute("XA END 'tc-xa-1'");
        s.execute("XA PREPARE 'tc-xa-1'");
        // later transactions commit and are delivered around it, for longer than any gap waits
        for (int i = 0; i < 6; i++) {
          p.sql("INSERT INTO accounts VALUES (" + (10 + i) + ", 'later')");
          Thread.sleep(500);
        }
        p.awaitMirrorEqualsTable(m, "accounts");
        assertThat(m.get(2)).as("not before it commits").isNull();
        s.execute("XA COMMIT 'tc-xa-1'");
      }
      p.awaitMirrorEqualsTable(m, "accounts");
      assertThat(m.get(2)).containsEntry("name", "prepared");
      assertThat(m.get(1)).containsEntry("name", "prepared");

      // the coordinator's connection goes away after PREPARE; it commits from another one
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        s.execute("XA START 'tc-xa-2'");
        s.execute("INSERT INTO accounts VALUES (3, 'detached')");
        s.execute("XA END 'tc-xa-2'");
        s.execute("XA PREPARE 'tc-xa-2'");
      }
      for (int i = 0; i < 6; i++) {
        p.sql("INSERT INTO accounts VALUES (" + (20 + i) + ", 'later')");
        Thread.sleep(500);
      }
      p.awaitMirrorEqualsTable(m, "accounts");
      assertThat(m.get(3)).as("not before it commits").isNull();
      p.sql("XA COMMIT 'tc-xa-2'");
      p.awaitMirrorEqualsTable(m, "accounts");
      assertThat(m.get(3)).containsEntry("name", "detached");
    }
  }

  /**
   * PostgreSQL needs max_prepared_transactions above 0 (the default): a cluster of the test's own.
   */
  @Test
  void aPostgresTransactionPreparedLongBeforeItCommitsReachesTheMirrorWhenItCommits()
      throws Exception {
    try (LocalDatabases.Postgres db = LocalDatabases.Postgres.start("two-phase")) {
      db.execute(
          "CREATE SCHEMA bank",
          "CREATE TABLE bank.accounts (id int PRIMARY KEY, name text)",
          "INSERT INTO bank.accounts VALUES (1, 'a')");
      try (TablecastServer server = LocalDatabases.serve(db.jdbcUrl(), "bank.accounts");
          TablecastClient client = LocalDatabases.client(server)) {
        TableMirror<Map<String, Object>> m = client.mirror("bank.accounts");
        assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl());
            Statement s = c.createStatement()) {
          c.setAutoCommit(false);
          s.execute("INSERT INTO bank.accounts VALUES (2, 'prepared')");
          s.execute("UPDATE bank.accounts SET name = 'prepared' WHERE id = 1");
          s.execute("PREPARE TRANSACTION 'tc-2pc-1'"); // detached from this session from now on
        }
        for (int i = 0; i < 6; i++) {
          db.execute("INSERT INTO bank.accounts VALUES (" + (10 + i) + ", 'later')");
          Thread.sleep(500);
        }
        awaitMirror(m, db.jdbcUrl());
        assertThat(m.get(2)).as("not before it commits").isNull();
        db.execute("COMMIT PREPARED 'tc-2pc-1'");
        awaitMirror(m, db.jdbcUrl());
        assertThat(m.get(2)).containsEntry("name", "prepared");
      }
    }
  }

  private static void awaitMirror(TableMirror<Map<String, Object>> m, String jdbcUrl) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Map<Object, Object> mirror = new TreeMap<>();
              for (Map<String, Object> r : m.rows()) {
                mirror.put(((Number) r.get("id")).intValue(), r.get("name"));
              }
              assertThat(mirror).isEqualTo(LocalDatabases.rows(jdbcUrl, "bank.accounts"));
            });
  }
}
