package io.tablecast.server.postgresql;

import io.tablecast.server.tail.SessionProbe;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.postgresql.PGConnection;

/**
 * PostgreSQL's sessions for the tail's lost-answer check: a connection's backend process id, as the
 * server sent it when the connection began, and {@code pg_stat_activity}'s state of that backend.
 * Behind a pooler (PgBouncer) the id the driver got is the pooler's own, which no backend has, or
 * another client's: asked, the database names another backend ({@link #askSessionOf}), and the
 * check leaves the read alone and never ends a session.
 */
final class PgSessions implements SessionProbe {
  static final PgSessions INSTANCE = new PgSessions();

  /** How long the backend has been idle (in a transaction or not): it waits for its client. */
  private static final String IDLE_SECONDS =
      "SELECT floor(extract(epoch FROM clock_timestamp() - state_change))::bigint"
          + " FROM pg_catalog.pg_stat_activity WHERE pid = ? AND state LIKE 'idle%'";

  /** The application name of the server's sessions unless the URL gives one. */
  static final String APPLICATION_NAME = "tablecast";

  /**
   * Ends the backend when it is still idle as long, and is this server's: the same user and the
   * same application name as the asking connection, which the pool's settings gave both. Behind a
   * pooler, whose own ids no backend has, or with another session's pid, nothing matches.
   */
  private static final String END =
      "SELECT pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity"
          + " WHERE pid = ? AND state LIKE 'idle%' AND usename = current_user"
          + " AND application_name = current_setting('application_name')"
          + " AND clock_timestamp() - state_change >= make_interval(secs => ?)";

  private PgSessions() {}

  @Override
  public boolean end(Connection other, long session, long idleSeconds) throws SQLException {
    try (PreparedStatement s = other.prepareStatement(END)) {
      s.setInt(1, (int) session);
      s.setLong(2, idleSeconds);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  @Override
  public long sessionOf(Connection c) throws SQLException {
    return c.isWrapperFor(PGConnection.class) ? c.unwrap(PGConnection.class).getBackendPID() : -1;
  }

  @Override
  public String sessionIdQuery() {
    return "SELECT pg_catalog.pg_backend_pid()";
  }

  @Override
  public long idleSeconds(Connection other, long session) throws SQLException {
    try (PreparedStatement s = other.prepareStatement(IDLE_SECONDS)) {
      s.setInt(1, (int) session);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  @Override
  public Map<String, String> boundedConnection() {
    return Map.of("connectTimeout", "5", "socketTimeout", "5", "loginTimeout", "5");
  }
}
