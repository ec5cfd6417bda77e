package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server (or a capture) restarted while a transaction that wrote to a cached table is still open,
 * as happens on any busy database: its triggers are in place, so the start creates none, and
 * neither waits for that transaction nor holds up the writers behind it. Before, MySQL/MariaDB's
 * {@code CREATE TRIGGER IF NOT EXISTS} of the trigger already there queued for the table's metadata
 * lock behind the open transaction ({@code lock_wait_timeout}: a year by default), and every writer
 * of the table queued behind it.
 */
class StartBesideAnOpenTransactionTest {
  static final Duration CONVERGE = Duration.ofSeconds(60);
  static final String DDL = "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(40))";

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRestartDoesNotWaitForAnOpenTransactionNorHoldUpItsWriters(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "openstart", List.of(DDL), "notes");
        Connection open = p.db.connect()) {
      p.startServer(); // installs the capture
      p.stopServer();
      open.setAutoCommit(false);
      try (Statement s = open.createStatement()) {
        s.execute("INSERT INTO notes VALUES (1, 'open while the server starts')");
      }

      CompletableFuture<Void> start = CompletableFuture.runAsync(() -> p.startServer());
      try {
        start.get(20, TimeUnit.SECONDS);
      } finally {
        open.rollback(); // frees a start that waits (the old code): the test then ends
      }
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(() -> p.sql("INSERT INTO notes VALUES (2, 'another writer')"));
      writer.get(20, TimeUnit.SECONDS);

      try (TablecastClient client = p.client("reader")) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
        await().atMost(CONVERGE).until(() -> m.get(2) != null);
        assertThat(m.get(1)).as("rolled back: never there").isNull();
      }
    }
  }

  /**
   * PostgreSQL: a start whose read of the tables waits for the lock of an {@code ALTER TABLE} not
   * yet committed (described before it, read after it) serves the table in its new columns. Before,
   * the start failed: "initial snapshot failed: bytes left after the last column".
   */
  @org.junit.jupiter.api.Test
  void aStartThatReadsATableAlteredMeanwhileServesItsNewColumns() throws Exception {
    try (Pipeline p =
            Pipeline.create(
                Kind.POSTGRESQL,
                "alterstart",
                List.of(DDL, "INSERT INTO notes VALUES (1, 'one'), (2, 'two')"),
                "notes");
        Connection alter = p.db.connect()) {
      p.startServer(); // installs the capture
      p.stopServer();
      alter.setAutoCommit(false);
      try (Statement s = alter.createStatement()) {
        s.execute("ALTER TABLE notes ADD COLUMN tier int NOT NULL DEFAULT 7");
      }
      CompletableFuture<Void> start = CompletableFuture.runAsync(() -> p.startServer());
      try {
        await() // the start described the table and now waits for its lock
            .atMost(CONVERGE)
            .until(() -> waitingForALock(p, "notes") || start.isDone());
      } finally {
        alter.commit();
      }
      start.get(20, TimeUnit.SECONDS);

      try (TablecastClient client = p.client("reader")) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
        assertThat(m.get(1)).containsEntry("tier", 7);
        p.awaitMirrorEqualsTable(m, "notes");
      }
    }
  }

  /**
   * MySQL/MariaDB: a start that described the table before an {@code ALTER TABLE ... DROP COLUMN}
   * and reads it after (its read queued for the metadata lock behind the DDL, which waits for an
   * open transaction) serves the columns left. Before, every retry of the start's read asked for
   * the dropped column ("Unknown column"), for ever.
   */
  @org.junit.jupiter.api.Test
  void aStartWhoseReadComesAfterADroppedColumnServesTheColumnsLeft() throws Exception {
    try (Pipeline p =
            Pipeline.create(
                Kind.MYSQL,
                "dropstart",
                List.of(DDL, "INSERT INTO notes VALUES (1, 'one'), (2, 'two')"),
                "notes");
        Connection reader = p.db.connect()) {
      p.startServer(); // installs the capture
      p.stopServer();
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM notes").close(); // holds the table's metadata lock
      }
      CompletableFuture<Void> drop =
          CompletableFuture.runAsync(() -> p.sql("ALTER TABLE notes DROP COLUMN body"));
      await().atMost(CONVERGE).until(() -> waitingForMetadataLocks(p) >= 1); // the DDL
      CompletableFuture<Void> start = CompletableFuture.runAsync(() -> p.startServer());
      try {
        await() // the start described the table, and its read now waits behind the DDL
            .atMost(CONVERGE)
            .until(() -> waitingForMetadataLocks(p) >= 2 || start.isDone());
      } finally {
        reader.commit();
      }
      drop.get(20, TimeUnit.SECONDS);
      start.get(30, TimeUnit.SECONDS);

      try (TablecastClient client = p.client("reader")) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
        assertThat(m.columns()).extracting(io.tablecast.client.Column::name).containsExactly("id");
        p.awaitMirrorEqualsTable(m, "notes");
      }
    }
  }

  private static int waitingForMetadataLocks(Pipeline p) throws Exception {
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM information_schema.processlist"
                    + " WHERE state LIKE 'Waiting for table metadata lock%'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Whether a session waits for a lock on {@code table} of {@code p}'s database. */
  private static boolean waitingForALock(Pipeline p, String table) throws Exception {
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_locks l JOIN pg_class r ON r.oid = l.relation"
                    + " WHERE NOT l.granted AND r.relname = '"
                    + table
                    + "'")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }
}
