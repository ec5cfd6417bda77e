package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: {@code TRUNCATE} fires no trigger, but it drops and re-creates the table, which
 * gets a new InnoDB table id (seen on MariaDB 10.11; MySQL 8 re-creates it too, by its manual). The
 * capture watch compares each cached table's id with the one it saw last ({@link #truncated}); a
 * new id under the same creation time means the table was truncated (a rebuild, {@code OPTIMIZE
 * TABLE} or a rebuilding {@code ALTER TABLE}, gets a new creation time too), and the table is
 * re-read whole as a resync, so that clients get what changed within {@code capture_check_interval}
 * instead of at its next reconciliation pass.
 *
 * <p>The ids are in {@code information_schema.INNODB_SYS_TABLES} (MariaDB) or {@code INNODB_TABLES}
 * (MySQL 8), which need the {@code PROCESS} privilege; without it (said once at INFO), and for a
 * name with characters outside ASCII (InnoDB's file-name encoding of those is not reproduced here),
 * a {@code TRUNCATE} is found by reconciliation, as documented.
 */
final class RecreatedTables {
  private static final Logger LOG = RecentEvents.logger(RecreatedTables.class);

  private final String view;
  private final Map<TableId, Seen> seen = new HashMap<>();

  /** A table's InnoDB id and creation time ({@code information_schema.TABLES.CREATE_TIME}). */
  private record Seen(long id, String created) {}

  private boolean unreadable;

  RecreatedTables(MysqlFlavor flavor) {
    this.view =
        flavor == MysqlFlavor.MARIADB
            ? "information_schema.INNODB_SYS_TABLES"
            : "information_schema.INNODB_TABLES";
  }

  /**
   * The tables among {@code tables} that were truncated since the last call: a new InnoDB id under
   * the same creation time (none at the first call: it only remembers them). A new id with a new
   * creation time is a rebuild ({@code OPTIMIZE TABLE}, a rebuilding {@code ALTER TABLE}), which
   * changes no row: not re-read, since re-reading a large table costs its rows' memory again (a
   * TRUNCATE and a rebuild between two looks are left to reconciliation). Call it before a snapshot
   * that reads the tables, so that a TRUNCATE after the look is found by the next one.
   */
  synchronized Set<TableId> truncated(Connection c, Collection<TableId> tables)
      throws SQLException {
    Map<String, TableId> byName = new LinkedHashMap<>();
    for (TableId t : tables) {
      String name = innodbName(t);
      if (name != null) {
        byName.put(name, t);
      }
    }
    if (unreadable || byName.isEmpty()) {
      return Set.of();
    }
    Map<TableId, Long> ids = new HashMap<>();
    Map<TableId, String> created;
    try {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT NAME, TABLE_ID FROM " + view + " WHERE NAME IN (" + marks(byName) + ")")) {
        int i = 1;
        for (String name : byName.keySet()) {
          ps.setString(i++, name);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ids.put(byName.get(rs.getString(1)), rs.getLong(2));
          }
        }
      }
      created = creationTimes(c, byName.values());
    } catch (SQLException e) {
      if (!TrxLooks.isAccessDenied(e)) {
        throw e;
      }
      unreadable = true;
      LOG.info(
          "{} is not readable ({}): a TRUNCATE of a cached table, which fires no trigger, reaches "
              + "clients through reconciliation only; grant PROCESS to have it re-read within "
              + "capture_check_interval",
          view,
          e.getMessage());
      return Set.of();
    }
    Set<TableId> out = new LinkedHashSet<>();
    for (Map.Entry<TableId, Long> e : ids.entrySet()) {
      Seen now = new Seen(e.getValue(), created.get(e.getKey()));
      Seen before = seen.put(e.getKey(), now);
      if (before != null && before.id != now.id) {
        if (Objects.equals(before.created, now.created)) {
          out.add(e.getKey());
        } else {
          LOG.debug("{} was rebuilt (new InnoDB id and creation time): not re-read", e.getKey());
        }
      }
    }
    return out;
  }

  private static Map<TableId, String> creationTimes(Connection c, Collection<TableId> tables)
      throws SQLException {
    Map<TableId, String> out = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TABLE_SCHEMA, TABLE_NAME, CREATE_TIME FROM information_schema.TABLES"
                + " WHERE (TABLE_SCHEMA, TABLE_NAME) IN ("
                + String.join(", ", Collections.nCopies(tables.size(), "(?, ?)"))
                + ")")) {
      int i = 1;
      for (TableId t : tables) {
        ps.setString(i++, t.schema());
        ps.setString(i++, t.name());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3));
        }
      }
    }
    return out;
  }

  private static String marks(Map<String, TableId> byName) {
    return String.join(", ", Collections.nCopies(byName.size(), "?"));
  }

  /**
   * InnoDB's name of {@code t}: {@code database/table}, each character other than an ASCII letter,
   * digit or underscore as {@code @} and its four hex digits; null for a name outside ASCII.
   */
  static String innodbName(TableId t) {
    String schema = encode(t.schema());
    String name = encode(t.name());
    return schema == null || name == null ? null : schema + "/" + name;
  }

  private static String encode(String identifier) {
    StringBuilder out = new StringBuilder(identifier.length());
    for (int i = 0; i < identifier.length(); i++) {
      char ch = identifier.charAt(i);
      if (ch > 0x7f) {
        return null;
      }
      if (Character.isLetterOrDigit(ch) || ch == '_') {
        out.append(ch);
      } else {
        out.append('@').append(String.format(Locale.ROOT, "%04x", (int) ch));
      }
    }
    return out.toString();
  }
}
