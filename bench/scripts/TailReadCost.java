import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one poll of the PostgreSQL tail costs the database with an outbox of a given size: the
 * tail's one-statement read (PgSingleStatementRead around PgOutboxQueries.newRows), prepared once
 * and run again and again with the current snapshot as the previous one (an idle poll: nothing
 * new), as the server's pool runs it. Two forms on two connections, alternated round by round:
 *
 * <ul>
 *   <li>{@code before}: the read of 3675925, the session's default {@code plan_cache_mode};
 *   <li>{@code after}: the read bounded by its own snapshot ({@code txid <
 *       pg_snapshot_xmax(pg_current_snapshot())}), the session with {@code plan_cache_mode =
 *       force_generic_plan}, as the pool's sessions now run (PgSessionSettings.pool).
 * </ul>
 *
 * The SQL is copied here from the server's classes (they are package-private there); keep it in
 * step. Fills {@code tc_readcost.tablecast_outbox} with ROWS rows of committed transactions
 * (this version's outbox shape) and ANALYZEs it, then prints each round's µs of the backend's CPU
 * per read ({@code /proc/PID/schedstat}, so it must run on the database's machine) and each form's
 * median, with how the server planned it ({@code pg_prepared_statements}).
 *
 * <pre>
 * java -cp ~/.m2/repository/org/postgresql/postgresql/42.7.8/postgresql-42.7.8.jar \
 *   bench/scripts/TailReadCost.java 'jdbc:postgresql://127.0.0.1:5433/bench?user=postgres' 1000000 2000 7
 * </pre>
 */
public class TailReadCost {
  private static final String OUTBOX = "tc_readcost.tablecast_outbox";

  public static void main(String[] args) throws Exception {
    String url = args[0];
    int rows = Integer.parseInt(args[1]);
    int executions = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    try (Connection setup = DriverManager.getConnection(url);
        Statement s = setup.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS tc_readcost CASCADE");
      s.execute("CREATE SCHEMA tc_readcost");
      s.execute(
          "CREATE TABLE "
              + OUTBOX
              + " (id bigserial NOT NULL, table_name text NOT NULL, op char(1) NOT NULL,"
              + " new_row jsonb, old_row jsonb, txid xid8 NOT NULL DEFAULT pg_current_xact_id(),"
              + " created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp(),"
              + " PRIMARY KEY (txid, id))");
      // committed transactions before any snapshot the reads take: txids from 3 to below the
      // current one, several rows each when the database has run fewer transactions than ROWS
      s.execute(
          "INSERT INTO "
              + OUTBOX
              + " (table_name, op, new_row, txid) SELECT 'public.items', 'U',"
              + " jsonb_build_object('id', g, 'v', g), (3 + (g - 1) * (pg_current_xact_id()"
              + "::text::numeric - 4) / "
              + rows
              + ")::bigint::text::xid8 FROM generate_series(1, "
              + rows
              + ") g");
      s.execute("ANALYZE " + OUTBOX);
    }
    String[] names = {"before", "after"};
    String[] sql = {read(false), read(true)};
    String[] setupSql = {null, "SET plan_cache_mode = force_generic_plan"};
    List<List<Double>> costs = List.of(new ArrayList<>(), new ArrayList<>());
    Connection[] connections = new Connection[2];
    try {
      for (int k = 0; k < 2; k++) {
        connections[k] = DriverManager.getConnection(url);
        if (setupSql[k] != null) {
          try (Statement s = connections[k].createStatement()) {
            s.execute(setupSql[k]);
          }
        }
      }
      for (int round = 0; round < rounds; round++) {
        StringBuilder line = new StringBuilder("round " + (round + 1) + ":");
        for (int k = 0; k < 2; k++) {
          int kk = round % 2 == 0 ? k : 1 - k;
          Connection c = connections[kk];
          Path stat = Path.of("/proc/" + backendPid(c) + "/schedstat");
          String snapshot = snapshot(c);
          long before = cpuNanos(stat);
          for (int i = 0; i < executions; i++) {
            poll(c, sql[kk], snapshot);
          }
          double micros = (cpuNanos(stat) - before) / 1000.0 / executions;
          costs.get(kk).add(micros);
          line.append(String.format(" %s %.1f µs", names[kk], micros));
        }
        System.out.println(line);
      }
      for (int k = 0; k < 2; k++) {
        List<Double> sorted = new ArrayList<>(costs.get(k));
        Collections.sort(sorted);
        System.out.printf(
            "%s: median %.1f µs of the backend's CPU per read (%s)%n",
            names[k], sorted.get(sorted.size() / 2), plans(connections[k]));
      }
    } finally {
      for (Connection c : connections) {
        if (c != null) {
          c.close();
        }
      }
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS tc_readcost CASCADE");
      }
    }
  }

  /** PgSingleStatementRead's statement around PgOutboxQueries.newRows, before or after. */
  static String read(boolean bounded) {
    String newRows =
        "(SELECT * FROM "
            + OUTBOX
            + " WHERE txid >= pg_snapshot_xmax(?::pg_snapshot)"
            + (bounded ? " AND txid < pg_snapshot_xmax(pg_current_snapshot())" : "")
            + " UNION ALL SELECT * FROM "
            + OUTBOX
            + " WHERE txid = ANY(ARRAY(SELECT pg_snapshot_xip(?::pg_snapshot)))) fresh "
            + "WHERE NOT pg_visible_in_snapshot(txid, ?::pg_snapshot)";
    String readSql =
        "SELECT id, table_name, op, new_row::text, old_row::text, "
            + "(extract(epoch FROM created_at) * 1000)::bigint FROM "
            + newRows
            + " ORDER BY id";
    return "SELECT f.*, s.snap, s.started, s.recovered FROM (SELECT pg_current_snapshot()::text"
        + " AS snap, pg_postmaster_start_time() AS started,"
        + " CASE WHEN ? THEN (SELECT stats_reset FROM pg_stat_archiver) END AS recovered) s "
        + "LEFT JOIN LATERAL ("
        + readSql
        + " LIMIT 1001) f ON true ORDER BY f.id";
  }

  static String snapshot(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * One idle poll from {@code snapshot}, taken before the round: nothing committed since (the
   * outbox's rows are older), so the read finds nothing, as a poll of an idle database.
   */
  static void poll(Connection c, String sql, String snapshot) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setBoolean(1, false);
      for (int i = 2; i <= 4; i++) {
        ps.setString(i, snapshot);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rs.getString(7);
        }
      }
    }
  }

  static String plans(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                    + " WHERE statement LIKE '%pg_snapshot_xip%'")) {
      return rs.next()
          ? rs.getLong(1) + " generic plans, " + rs.getLong(2) + " custom plans"
          : "not prepared on the server";
    }
  }

  static long backendPid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static long cpuNanos(Path schedstat) throws Exception {
    return Long.parseLong(Files.readString(schedstat).trim().split(" ")[0]);
  }
}
