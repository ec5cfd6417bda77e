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
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pool's sessions ({@link PgDialect#poolSessionSetup}, run by the pool at each new connection,
 * as {@code IdleSessionTimeoutTest} shows end to end) do not JIT-compile the tail's read of the
 * outbox. On an outbox of about a million rows the planner's estimate for that read passes {@code
 * jit_above_cost} and every poll compiled itself first (15-20 ms, the median latency of every
 * change at 1,000/s going from about 1 ms to 20); here {@code jit_above_cost = 0} on the session,
 * as a DBA might set it for a role, stands for that outbox.
 */
class PgPoolSessionTest {
  /** What the pool's sessions run with pgjdbc's defaults. */
  private static final String POOL = PgDialect.INSTANCE.poolSessionSetup(Map.of());

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
        s.execute(POOL);
      }
      assertThat(plan(pooled)).noneMatch(line -> line.startsWith("JIT:"));
    }
  }

  /**
   * PostgreSQL planned the tail's read again at every poll (each snapshot's values gave a cheaper
   * plan than the plan for any snapshot), three to five times as long as running it. The pool's
   * sessions ask for generic plans, and the read is bounded so that its generic plan expects few
   * rows: after the driver's first executions (pgjdbc prepares on the server from the fifth) the
   * same read is never planned again.
   */
  @Test
  void thePoolsSessionsPlanTheTailsReadOncePerConnection() throws Exception {
    TestDatabases.Isolated db = outbox("pool_plans", 20_000);
    try (Connection pooled = db.connect()) {
      try (Statement s = pooled.createStatement()) {
        s.execute(POOL);
      }
      String sql = "SELECT * FROM " + PgOutboxQueries.newRows("tablecast_outbox");
      for (int poll = 0; poll < 15; poll++) {
        String snapshot = snapshot(pooled);
        try (PreparedStatement ps = pooled.prepareStatement(sql)) {
          for (int i = 1; i <= 3; i++) {
            ps.setString(i, snapshot);
          }
          ps.executeQuery().close();
        }
      }
      try (Statement s = pooled.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                      + " WHERE statement LIKE '%pg_snapshot_xip%'")) {
        assertThat(rs.next()).as("the read was prepared on the server").isTrue();
        assertThat(rs.getLong(2)).as("plans for one snapshot's values").isZero();
        assertThat(rs.getLong(1)).as("executions of the generic plan").isGreaterThanOrEqualTo(10);
      }
    }
  }

  /**
   * The read's generic plan expects a small share of the outbox (a range with both ends unknown),
   * not the third that {@code txid >=} an unknown value alone is taken for: an index scan however
   * large the outbox grows.
   */
  @Test
  void theGenericPlanOfTheReadExpectsFewRowsOfALargeOutbox() throws Exception {
    int rows = 200_000;
    TestDatabases.Isolated db = outbox("pool_generic", rows);
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(POOL);
      String numbered = PgOutboxQueries.newRows("tablecast_outbox");
      for (int i = 1; i <= 3; i++) {
        numbered = numbered.replaceFirst("\\?", "\\$" + i);
      }
      s.execute("PREPARE tail_read(text, text, text) AS SELECT * FROM " + numbered);
      String snapshot = snapshot(c);
      List<String> plan = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "EXPLAIN EXECUTE tail_read('"
                  + snapshot
                  + "', '"
                  + snapshot
                  + "', '"
                  + snapshot
                  + "')")) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
      assertThat(String.join("\n", plan)).as("a generic plan").contains("$1");
      Matcher estimate = Pattern.compile("rows=(\\d+)").matcher(plan.get(0));
      assertThat(estimate.find()).isTrue();
      assertThat(Long.parseLong(estimate.group(1)))
          .as("rows the plan expects, of %d: %s", rows, plan)
          .isLessThan(rows / 20);
      assertThat(plan).noneMatch(line -> line.contains("Seq Scan"));
    }
  }

  /**
   * Generic plans only where pgjdbc prepares on the server: through PgBouncer in transaction mode
   * ({@code prepareThreshold=0}) the session's settings may reach other clients' connections.
   */
  @Test
  void genericPlansOnlyWhenTheDriverPreparesOnTheServer() {
    assertThat(PgSessionSettings.serverPrepares(Map.of())).isTrue();
    assertThat(PgSessionSettings.serverPrepares(Map.of("preparethreshold", "5"))).isTrue();
    assertThat(PgSessionSettings.serverPrepares(Map.of("preparethreshold", "0"))).isFalse();
    assertThat(PgSessionSettings.serverPrepares(Map.of("preparethreshold", "-1"))).isFalse();
    assertThat(PgSessionSettings.serverPrepares(Map.of("preferquerymode", "simple"))).isFalse();
    assertThat(PgDialect.INSTANCE.poolSessionSetup(Map.of("preparethreshold", "0")))
        .contains("jit")
        .doesNotContain("plan_cache_mode");
    assertThat(PgDialect.INSTANCE.poolSessionSetup(Map.of())).contains("force_generic_plan");
  }

  /** An outbox of this version's shape holding {@code rows} rows of committed transactions. */
  private static TestDatabases.Isolated outbox(String name, int rows) {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated(name);
    db.execute(
        "CREATE TABLE tablecast_outbox (id bigserial NOT NULL, table_name text NOT NULL,"
            + " op char(1) NOT NULL, new_row jsonb, old_row jsonb,"
            + " txid xid8 NOT NULL DEFAULT pg_current_xact_id(),"
            + " created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (txid, id))",
        "INSERT INTO tablecast_outbox (table_name, op, new_row, txid) SELECT 'a.items', 'I',"
            + " jsonb_build_object('id', g), (g + 3)::text::xid8 FROM generate_series(1, "
            + rows
            + ") g",
        "ANALYZE tablecast_outbox");
    return db;
  }

  private static String snapshot(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The plan of the tail's read of the outbox, as run (EXPLAIN ANALYZE), one line per element. */
  private static List<String> plan(Connection c) throws SQLException {
    String snapshot = snapshot(c);
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
