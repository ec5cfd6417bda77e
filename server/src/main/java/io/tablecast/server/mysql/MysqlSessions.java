package io.tablecast.server.mysql;

import io.tablecast.server.tail.SessionProbe;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * MySQL's and MariaDB's sessions for the tail's lost-answer check: a connection's id, as the server
 * sent it in its greeting, and the process list's command of that connection ({@code Sleep}: it
 * waits for its client). A session sees its own user's connections in the process list without the
 * PROCESS privilege. Behind a proxy (ProxySQL, MaxScale) the id the driver got is the proxy's own:
 * asked, the database names another session ({@link #askSessionOf}), and the check leaves the read
 * alone and never ends a session.
 */
final class MysqlSessions implements SessionProbe {
  static final MysqlSessions INSTANCE = new MysqlSessions();

  private static final String IDLE_SECONDS =
      "SELECT TIME FROM information_schema.PROCESSLIST WHERE ID = ? AND COMMAND = 'Sleep'";

  /**
   * The session when it is still waiting for its client after as long, and of the asking
   * connection's user (a user without the {@code PROCESS} privilege sees only its own, and may end
   * only its own, {@code KILL}).
   */
  private static final String STILL_WAITING =
      "SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ? AND COMMAND = 'Sleep'"
          + " AND TIME >= ? AND USER = SUBSTRING_INDEX(USER(), '@', 1)";

  private MysqlSessions() {}

  @Override
  public String sessionIdQuery() {
    return "SELECT CONNECTION_ID()";
  }

  /**
   * Ends the session with {@code KILL CONNECTION}: its transaction is rolled back and its locks
   * (metadata locks too, which an {@code ALTER TABLE} queues behind, and every writer of the table
   * behind it) let go. Connection ids are not given twice while the server runs, and the caller has
   * vouched for the id and for the instance: the id is the session the server gave up.
   */
  @Override
  public boolean end(Connection other, long session, long idleSeconds) throws SQLException {
    try (PreparedStatement s = other.prepareStatement(STILL_WAITING)) {
      s.setLong(1, session);
      s.setLong(2, idleSeconds);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
      }
    }
    try (Statement s = other.createStatement()) {
      s.execute("KILL CONNECTION " + session);
      return true;
    }
  }

  @Override
  public long sessionOf(Connection c) throws SQLException {
    return c.isWrapperFor(org.mariadb.jdbc.Connection.class)
        ? c.unwrap(org.mariadb.jdbc.Connection.class).getThreadId()
        : -1;
  }

  @Override
  public long idleSeconds(Connection other, long session) throws SQLException {
    try (PreparedStatement s = other.prepareStatement(IDLE_SECONDS)) {
      s.setLong(1, session);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  @Override
  public Map<String, String> boundedConnection() {
    return Map.of("connectTimeout", "5000", "socketTimeout", "5000");
  }
}
