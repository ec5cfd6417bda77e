package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A statement time limit on the server's database user, as DBAs set one for application roles
 * (PostgreSQL {@code ALTER ROLE ... SET statement_timeout}, MariaDB {@code max_statement_time};
 * here set through the URL, to the same effect on the server's sessions): a whole-table read of a
 * table that takes longer was cancelled and retried for ever, and the server never started (the old
 * code: {@code initial snapshot failed, retrying in 10000 ms: ... max_statement_time exceeded}
 * until the test's time ran out). The server's whole-table reads now run without a limit. On
 * PostgreSQL also without {@code idle_in_transaction_session_timeout} (here 50 ms): a snapshot's
 * transaction waits while the server handles the rows read (with the statement limit lifted alone,
 * a first run in a fresh JVM had two attempts cut short, {@code FATAL: terminating connection due
 * to idle-in-transaction timeout}; a later run got through, so that half is not shown failing on
 * every run). No attempt may be cut short now.
 */
class StatementTimeoutTest {

  private static final int ROWS = 600_000;

  @ParameterizedTest
  @EnumSource(Kind.class)
  @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aStatementTimeoutOfTheServersUserDoesNotStopItsWholeTableReads(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(80), price decimal(12,2))",
            kind == Kind.POSTGRESQL
                ? "INSERT INTO items SELECT g, repeat('x', 60) || g, g / 100.0"
                    + " FROM generate_series(1, "
                    + ROWS
                    + ") g"
                : "INSERT INTO items SELECT seq, CONCAT(REPEAT('x', 60), seq), seq / 100"
                    + " FROM seq_1_to_"
                    + ROWS);
    try (Pipeline p = Pipeline.create(kind, "stmt_timeout", ddl, "items")) {
      String url =
          p.db.jdbcUrl()
              + (kind == Kind.POSTGRESQL
                  ? "&options=-c%20statement_timeout%3D200%20-c%20idle_in_transaction_session_timeout%3D50"
                  : "&sessionVariables=max_statement_time=0.2");
      SourceConfig source = p.sourceConfig();
      long started = System.currentTimeMillis();
      p.startServer(
          b ->
              b.source(
                  new SourceConfig(
                      url,
                      null,
                      null,
                      true,
                      null,
                      null,
                      Duration.ofSeconds(1),
                      Duration.ofSeconds(1),
                      source.cachedTables())));
      TableMirror<Map<String, Object>> m =
          p.readyMirror(p.client("timeout"), "items", Duration.ofSeconds(60));
      p.sql("UPDATE items SET name = 'changed' WHERE id = 7");
      await().atMost(Duration.ofSeconds(20)).until(() -> "changed".equals(m.get(7).get("name")));
      assertThat(m.size()).isEqualTo(ROWS);
      assertThat(RecentEvents.global().newestFirst())
          .as("snapshot attempts cut short")
          .noneMatch(
              e -> e.timeMillis() >= started && e.message().contains("initial snapshot failed"));
    }
  }
}
