package io.tablecast.server.mysql;

import io.tablecast.server.tail.SessionProbe;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * MySQL's and MariaDB's sessions for the tail's lost-answer check: a connection's id, as the server
 * sent it in its greeting, and the process list's command of that connection ({@code Sleep}: it
 * waits for its client). A session sees its own user's connections in the process list without the
 * PROCESS privilege. Behind a proxy (ProxySQL, MaxScale) the id the driver got is the proxy's own:
 * the check then finds nothing, or a connection that is not the read's, and at worst makes a read
 * that waited long again.
 */
final class MysqlSessions implements SessionProbe {
  static final MysqlSessions INSTANCE = new MysqlSessions();

  private static final String IDLE_SECONDS =
      "SELECT TIME FROM information_schema.PROCESSLIST WHERE ID = ? AND COMMAND = 'Sleep'";

  private MysqlSessions() {}

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
