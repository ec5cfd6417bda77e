package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the {@code tablecast_consumers} table holds, read by any server or command: the live
 * servers' registrations ({@link #live}), the lowest outbox position one of them still needs
 * ({@link #lowestNeed}), and the table's own DDL. Each server writes its own registration with
 * {@link ConsumerRegistry}. A registry missing, or made by a version before a column, reads as
 * empty, or without that column.
 */
public final class Registrations {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Registrations() {}

  /**
   * A running server, as registered.
   *
   * @param id random per server run
   * @param serverName the server's {@code server_name}
   * @param host the host it runs on
   * @param tables the qualified names of the tables it caches
   * @param needsFrom the lowest outbox position it may still read (0: not known yet); null for a
   *     registry created by a version before it
   */
  public record Consumer(
      String id, String serverName, String host, List<String> tables, Long needsFrom) {
    @Override
    public String toString() {
      return "server '" + serverName + "' on " + host;
    }
  }

  /** The registry table of an installation, quoted for SQL. */
  static String table(Dialect dialect, String schema) {
    return dialect.quote(schema) + "." + dialect.quote("tablecast_consumers");
  }

  /** The statements that create the registry table (idempotent). */
  static List<String> createStatements(Dialect dialect, String schema) {
    return SqlTemplates.statements(
        SqlTemplates.render(
            dialect.templates() + "/consumers.sql", Map.of("consumers", table(dialect, schema))));
  }

  /**
   * What brings a registry created by an older version up to this one's ({@code needs_from}, for
   * pruning coordinated between servers); empty when it is current or does not exist yet.
   */
  static List<String> upgradeStatements(Connection c, Dialect dialect, String schema)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*), SUM(CASE WHEN column_name = 'needs_from' THEN 1 ELSE 0 END)"
                + " FROM information_schema.columns"
                + " WHERE table_schema = ? AND table_name = 'tablecast_consumers'")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0 && rs.getLong(2) == 0
            ? List.of("ALTER TABLE " + table(dialect, schema) + " ADD COLUMN needs_from BIGINT")
            : List.of();
      }
    }
  }

  /**
   * The servers registered on this installation whose heartbeat is within {@link
   * ConsumerRegistry#LIVENESS}; empty when the registry table does not exist.
   */
  static List<Consumer> live(Connection c, Dialect dialect, String schema) throws SQLException {
    try {
      return live(c, dialect, schema, "needs_from");
    } catch (SQLException e) {
      if (NO_SUCH_COLUMN.contains(e.getSQLState())) {
        return live(c, dialect, schema, "NULL"); // a registry of a version before needs_from
      }
      throw e;
    }
  }

  private static List<Consumer> live(Connection c, Dialect dialect, String schema, String needsFrom)
      throws SQLException {
    List<Consumer> out = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumer_id, server_name, host, cached_tables, "
                    + needsFrom
                    + " FROM "
                    + table(dialect, schema)
                    + " WHERE "
                    + LIVE
                    + " ORDER BY started_at");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long from = rs.getLong(5);
        Long needs = rs.wasNull() ? null : from; // before any other getter
        out.add(
            new Consumer(
                rs.getString(1), rs.getString(2), rs.getString(3), tables(rs.getString(4)), needs));
      }
    } catch (SQLException e) {
      if (NO_SUCH_TABLE.contains(e.getSQLState())) {
        return List.of(); // installed by a version without the registry, or not installed
      }
      throw e;
    }
    return out;
  }

  /** SQLSTATEs of "table does not exist": MySQL/MariaDB, PostgreSQL. */
  private static final Set<String> NO_SUCH_TABLE = Set.of("42S02", "42P01");

  /** SQLSTATEs of "column does not exist": MySQL/MariaDB, PostgreSQL. */
  static final Set<String> NO_SUCH_COLUMN = Set.of("42S22", "42703");

  /**
   * A registration whose heartbeat is within {@link ConsumerRegistry#LIVENESS} (SQL, both
   * databases).
   */
  static final String LIVE =
      "heartbeat_at > CURRENT_TIMESTAMP(6) - INTERVAL '"
          + ConsumerRegistry.LIVENESS.toSeconds()
          + "' SECOND";

  /**
   * What a live server still needs of the outbox: from position {@code from} on.
   *
   * @param from the lowest outbox position it may still read
   * @param server which server
   */
  public record Need(long from, String server) {}

  /**
   * The live registration that needs the lowest outbox position (below which alone every server
   * prunes), empty when none says (or the registry predates {@code needs_from}).
   */
  public static Optional<Need> lowestNeed(Connection c, Dialect dialect, String schema)
      throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT needs_from, server_name, host FROM "
                    + table(dialect, schema)
                    + " WHERE "
                    + LIVE
                    + " AND needs_from IS NOT NULL ORDER BY needs_from LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(
              new Need(rs.getLong(1), "server '" + rs.getString(2) + "' on " + rs.getString(3)))
          : Optional.empty();
    } catch (SQLException e) {
      if (NO_SUCH_TABLE.contains(e.getSQLState()) || NO_SUCH_COLUMN.contains(e.getSQLState())) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static List<String> tables(String json) {
    try {
      return Arrays.asList(JSON.readValue(json, String[].class));
    } catch (JsonProcessingException e) {
      return List.of();
    }
  }
}
