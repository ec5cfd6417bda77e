package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pool's sessions ({@link PgSessionSettings#POOL}, run by the pool at each new connection, as
 * {@code IdleSessionTimeoutTest} shows end to end) do not JIT-compile the tail's read of the
 * outbox. On an outbox of about a million rows the planner's estimate for that read passes {@code
 * jit_above_cost} and every poll compiled itself first (15-20 ms, the median latency of every
 * change at 1,000/s going from about 1 ms to 20); here {@code jit_above_cost = 0} on the session,
 * as a DBA might set it for a role, stands for that outbox.
 */
class PgPoolSessionTest {
  private static final String JIT_FOR_EVERYTHING =
      "options=-c%20jit%3Don%20-c%20jit_above_cost%3D0%20-c%20jit_inline_above_cost%3D-1";

  @Test
  void thePoolsSessionsReadTheOutboxWithoutCompilingTheRead() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("pool_jit");
    db.execute(
        "CREATE TABLE tablecast_outbox (id bigserial PRIMARY KEY, table_name text NOT NULL,"
            + " txid xid8 NOT NULL DEFAULT pg_current_xact_id())",
        "CREATE INDEX tablecast_outbox_txid ON tablecast_outbox (txid)",
        "INSERT INTO tablecast_outbox (table_name) VALUES ('a.items')");
    String url = db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + JIT_FOR_EVERYTHING;
    try (Connection forced = DriverManager.getConnection(url);
        Connection pooled = DriverManager.getConnection(url)) {
      assertThat(plan(forced))
          .as("a session that JIT-compiles what costs more than 0: the test can fail")
          .anyMatch(line -> line.startsWith("JIT:"));
      try (Statement s = pooled.createStatement()) {
        s.execute(PgSessionSettings.POOL);
      }
      assertThat(plan(pooled)).noneMatch(line -> line.startsWith("JIT:"));
    }
  }

  /** The plan of the tail's read of the outbox, as run (EXPLAIN ANALYZE), one line per element. */
  private static List<String> plan(Connection c) throws SQLException {
    String snapshot;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
      rs.next();
      snapshot = rs.getString(1);
    }
    List<String> lines = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "EXPLAIN (ANALYZE) SELECT * FROM " + PgOutboxQueries.newRows("tablecast_outbox"))) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, snapshot);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          lines.add(rs.getString(1).trim());
        }
      }
    }
    return lines;
  }
}
