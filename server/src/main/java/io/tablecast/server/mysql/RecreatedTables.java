package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: {@code TRUNCATE} fires no trigger, but it drops and re-creates the table, which
 * gets a new InnoDB table id (seen on MariaDB 10.11; MySQL 8 re-creates it too, by its manual). The
 * capture watch compares each cached table's id with the one it saw last ({@link #changed}); a new
 * id means the table was truncated or rebuilt (also {@code OPTIMIZE TABLE} and a rebuilding {@code
 * ALTER TABLE}), and the table is re-read whole as a resync, so that clients get what changed
 * within {@code capture_check_interval} instead of at its next reconciliation pass.
 *
 * <p>The ids are in {@code information_schema.INNODB_SYS_TABLES} (MariaDB) or {@code INNODB_TABLES}
 * (MySQL 8), which need the {@code PROCESS} privilege; without it (said once at INFO), and for a
 * name with characters outside ASCII (InnoDB's file-name encoding of those is not reproduced here),
 * a {@code TRUNCATE} is found by reconciliation, as documented.
 */
final class RecreatedTables {
  private static final Logger LOG = RecentEvents.logger(RecreatedTables.class);

  private final String view;
  private final Map<TableId, Long> seen = new HashMap<>();
  private boolean unreadable;

  RecreatedTables(MysqlFlavor flavor) {
    this.view =
        flavor == MysqlFlavor.MARIADB
            ? "information_schema.INNODB_SYS_TABLES"
            : "information_schema.INNODB_TABLES";
  }

  /**
   * The tables among {@code tables} whose InnoDB id differs from the one seen at the last call
   * (none at the first: it only remembers them). Call it before a snapshot that reads the tables,
   * so that a TRUNCATE after the look is found by the next one.
   */
  synchronized Set<TableId> changed(Connection c, Collection<TableId> tables) throws SQLException {
    Map<String, TableId> byName = new HashMap<>();
    for (TableId t : tables) {
      String name = innodbName(t);
      if (name != null) {
        byName.put(name, t);
      }
    }
    if (unreadable || byName.isEmpty()) {
      return Set.of();
    }
    String sql =
        "SELECT NAME, TABLE_ID FROM "
            + view
            + " WHERE NAME IN ("
            + String.join(", ", java.util.Collections.nCopies(byName.size(), "?"))
            + ")";
    Set<TableId> changed = new LinkedHashSet<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      for (String name : byName.keySet()) {
        ps.setString(i++, name);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TableId t = byName.get(rs.getString(1));
          Long before = t == null ? null : seen.put(t, rs.getLong(2));
          if (before != null && before != rs.getLong(2)) {
            changed.add(t);
          }
        }
      }
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
    }
    return changed;
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
