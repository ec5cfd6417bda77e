package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * The connection an installer opens to the configured database, bounded in time: its connecting
 * (the family's {@link DatabaseFamily#connectBounds}, where the URL does not set them) and each
 * statement's answer ({@link BoundedAnswers}) within {@code within}. A database that accepts the
 * connection but answers nothing held a start for ever.
 */
final class SourceConnection {
  private SourceConnection() {}

  /** The driver properties: the configured user and password, and the family's bounds. */
  static Properties properties(
      SourceConfig config, DatabaseFamily family, String driverUrl, Duration within) {
    Properties props = new Properties();
    if (config.user() != null) {
      props.setProperty("user", config.user());
    }
    if (config.password() != null) {
      props.setProperty("password", config.password());
    }
    String given = driverUrl.toLowerCase(Locale.ROOT);
    family
        .connectBounds(within)
        .forEach(
            (name, value) -> {
              if (!given.contains(name.toLowerCase(Locale.ROOT) + "=")) { // the URL's own win
                props.setProperty(name, value);
              }
            });
    return props;
  }

  /**
   * The driver properties of each new connection: {@code given}, with the password read again from
   * {@code source.password_file} where it is kept there, so that a connection made after the file
   * was rotated logs in with the new one. A plan outlives the start that made it (the capture
   * check, the repairs and the pool connect with it for as long as the server runs).
   */
  static Supplier<Properties> login(SourceConfig config, Properties given) {
    Properties fixed = new Properties();
    fixed.putAll(given);
    return () -> {
      Properties props = new Properties();
      props.putAll(fixed);
      if (config.passwordFile() != null) {
        props.setProperty("password", config.password());
      }
      return props;
    };
  }

  /**
   * A connection whose statements fail when no answer has come within {@code within}.
   *
   * @throws SQLException naming the database (its password masked), and saying so when it did not
   *     answer
   */
  static Connection open(SourceConfig config, String driverUrl, Properties props, Duration within)
      throws SQLException {
    Connection c;
    try {
      c = DriverManager.getConnection(driverUrl, props);
    } catch (SQLException e) {
      throw BoundedAnswers.sayingUnanswered(
          new SQLException(
              "cannot connect to " + config.database() + ": " + e.getMessage(),
              e.getSQLState(),
              e.getErrorCode(),
              e),
          "the connection",
          null);
    }
    return BoundedAnswers.bound(c, within);
  }
}
