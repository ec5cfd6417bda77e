package io.tablecast.server.postgresql;

import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.TableId;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL: {@code lock_timeout} for the install's transaction; the holders are the sessions with
 * a granted lock on a cached table or one of its partitions or inheritance children.
 */
final class PgDdlLocks implements DdlLocks {
  private static final String LOCK_NOT_AVAILABLE = "55P03";
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private static final String HOLDERS =
      "WITH RECURSIVE rels(oid) AS ("
          + " SELECT to_regclass(t)::oid FROM unnest(?::text[]) t"
          + " UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN rels r ON i.inhparent = r.oid)"
          + " SELECT a.pid, a.usename, a.application_name, a.state,"
          + " CAST(EXTRACT(EPOCH FROM now() - a.xact_start) AS bigint) AS open_seconds"
          + " FROM pg_catalog.pg_stat_activity a"
          + " WHERE a.pid <> pg_backend_pid() AND a.pid IN (SELECT l.pid FROM pg_catalog.pg_locks l"
          + " JOIN rels r ON l.relation = r.oid WHERE l.granted)"
          + " ORDER BY a.xact_start NULLS LAST LIMIT 5";

  /** The sessions waiting for a lock on the relation, longest first. */
  private static final String WAITERS =
      "SELECT a.pid, CAST(EXTRACT(EPOCH FROM now() - a.query_start) AS bigint), left(a.query, 120)"
          + " FROM pg_catalog.pg_stat_activity a WHERE a.pid <> pg_backend_pid()"
          + " AND a.pid IN (SELECT l.pid FROM pg_catalog.pg_locks l"
          + " WHERE l.relation = to_regclass(?) AND NOT l.granted)"
          + " ORDER BY a.query_start LIMIT 3";

  @Override
  public String limitWaits(Duration wait) {
    return "SET LOCAL lock_timeout = '" + wait.toMillis() + "ms'";
  }

  @Override
  public String limitIdleInTransaction(Duration idle) {
    return "SET LOCAL idle_in_transaction_session_timeout = '" + idle.toMillis() + "ms'";
  }

  @Override
  public String liftLimit() {
    return null; // SET LOCAL ends with the transaction
  }

  @Override
  public boolean isLockWaitTimeout(SQLException e) {
    return LOCK_NOT_AVAILABLE.equals(e.getSQLState());
  }

  @Override
  public boolean isReadDenied(SQLException e) {
    return INSUFFICIENT_PRIVILEGE.equals(e.getSQLState());
  }

  @Override
  public List<String> holders(Connection c, List<TableId> tables) throws SQLException {
    List<String> out = new ArrayList<>();
    Array names =
        c.createArrayOf(
            "text", tables.stream().map(PgDialect.INSTANCE::quote).toArray(String[]::new));
    try (PreparedStatement ps = c.prepareStatement(HOLDERS)) {
      ps.setArray(1, names);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          StringBuilder b = new StringBuilder("pid ").append(rs.getInt("pid"));
          b.append(" (user ").append(rs.getString("usename"));
          String application = rs.getString("application_name");
          if (application != null && !application.isEmpty()) {
            b.append(", ").append(application);
          }
          if (rs.getString("state") != null) {
            b.append(", ").append(rs.getString("state"));
          }
          long open = rs.getLong("open_seconds");
          if (!rs.wasNull()) {
            b.append(", transaction open ").append(open).append(" s");
          }
          out.add(b.append(')').toString());
        }
      }
    } finally {
      names.free();
    }
    return out;
  }

  @Override
  public List<String> waiters(Connection c, TableId table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(WAITERS)) {
      ps.setString(1, PgDialect.INSTANCE.quote(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add("pid " + rs.getInt(1) + " (" + rs.getLong(2) + " s): " + rs.getString(3));
        }
      }
    }
    return out;
  }
}
