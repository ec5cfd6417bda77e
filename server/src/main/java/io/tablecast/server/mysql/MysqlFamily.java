package io.tablecast.server.mysql;

import io.tablecast.server.capture.DatabaseFamily;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.SourceConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * MariaDB and MySQL 8, both through the MariaDB driver ({@code jdbc:mysql:} URLs are given to it as
 * {@code jdbc:mariadb:}); which of the two a server is, {@code SELECT VERSION()} says ({@link
 * MysqlFlavor}). Registered in {@code
 * META-INF/services/io.tablecast.server.capture.DatabaseFamily}.
 */
public final class MysqlFamily implements DatabaseFamily {
  private static final String MYSQL_PREFIX = "jdbc:mysql:";
  private static final String MARIADB_PREFIX = "jdbc:mariadb:";

  @Override
  public List<String> urlPrefixes() {
    return List.of(MARIADB_PREFIX, MYSQL_PREFIX);
  }

  @Override
  public String driverUrl(String jdbcUrl) {
    return jdbcUrl.startsWith(MYSQL_PREFIX)
        ? MARIADB_PREFIX + jdbcUrl.substring(MYSQL_PREFIX.length())
        : jdbcUrl;
  }

  /**
   * MariaDB Connector/J's {@code connectTimeout} (milliseconds), which bounds the handshake too: 30
   * s by default.
   */
  @Override
  public Map<String, String> connectBounds(Duration within) {
    return Map.of("connectTimeout", Long.toString(Math.max(1, within.toMillis())));
  }

  /** {@link SourceConfig#DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL}. */
  @Override
  public Duration defaultCaptureCheckInterval() {
    return SourceConfig.DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL;
  }

  @Override
  public Dialect detect(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT VERSION()")) {
      return new MysqlDialect(MysqlFlavor.of(rs.next() ? rs.getString(1) : null));
    }
  }
}
