package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A family of databases Tablecast captures from, found by the prefix of {@code source.jdbc_url}
 * ({@link Dialects}): what a configuration needs before connecting, and which {@link Dialect} a
 * connected database speaks. One implementation per family, in the family's package, registered by
 * one line of {@code META-INF/services/io.tablecast.server.capture.DatabaseFamily} (a public class
 * with a public no-argument constructor).
 */
public interface DatabaseFamily {

  /** The {@code source.jdbc_url} prefixes this family serves, such as {@code jdbc:postgresql:}. */
  List<String> urlPrefixes();

  /** The URL to give the JDBC driver for a configured one; the same by default. */
  default String driverUrl(String jdbcUrl) {
    return jdbcUrl;
  }

  /**
   * The driver properties that give a connection up when the database has not answered its
   * connecting (the handshake, the login) within {@code within}, where the driver waits without end
   * by default; the URL's own win. None by default.
   */
  default Map<String, String> connectBounds(Duration within) {
    return Map.of();
  }

  /**
   * The default of {@code source.capture_check_interval} for this family (docs/CONFIGURATION.md).
   */
  Duration defaultCaptureCheckInterval();

  /** The dialect of the database {@code c} is connected to (within a family, by its version). */
  Dialect detect(Connection c) throws SQLException;
}
