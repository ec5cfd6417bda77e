package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: {@code TRUNCATE} fires no trigger, but it drops and re-creates the table, which
 * gets a new InnoDB table id (seen on MariaDB 10.11; MySQL 8 re-creates it too, by its manual). The
 * capture watch compares each cached table's id with the one it saw last ({@link #rowsReplaced}); a
 * new id under the same creation time means the table was truncated (a rebuild, {@code OPTIMIZE
 * TABLE} or a rebuilding {@code ALTER TABLE}, gets a new creation time too), and the table is
 * re-read whole as a resync, so that clients get what changed within {@code capture_check_interval}
 * instead of at its next reconciliation pass.
 *
 * <p>A partitioned table has no id of its own: InnoDB holds each partition (and subpartition) as a
 * table named {@code database/table#P#partition} (MySQL 8: {@code #p#}). Partition maintenance
 * changes rows without a trigger too, and shows the same way (measured on MariaDB 10.11): {@code
 * TRUNCATE PARTITION} and {@code EXCHANGE PARTITION} give the partition a new id under the same
 * creation time; {@code DROP PARTITION} removes the partition and its rows (and gives the table a
 * new creation time). So a partition whose id changed under the same creation time, or a partition
 * that is gone, has the table re-read. A partition gone is also what {@code REORGANIZE PARTITION},
 * {@code COALESCE PARTITION} and {@code REMOVE PARTITIONING} leave, which keep every row: those
 * re-read the table for nothing, rather than take a {@code DROP PARTITION} with an {@code ADD
 * PARTITION} in the same interval (a rotation script's usual pair) for a rebuild. A partition whose
 * id changed under a new creation time is re-read too: other partition DDL in the same interval
 * ({@code TRUNCATE PARTITION p0} then {@code ADD PARTITION}, or p0 dropped and added again) gives
 * the table a new creation time, and such a truncation used to be taken for a rebuild and left to
 * reconciliation, the mirrors keeping the partition's old rows without a word (seen in {@code
 * PartitionsAndChildrenUnderLoadTest} on a busy machine, where two of its DDL fell between two
 * looks). A rebuild of a partitioned table ({@code OPTIMIZE TABLE}, {@code REBUILD PARTITION})
 * re-reads it for nothing. {@code ADD PARTITION} alone changes no row and is not re-read; nor is
 * the rebuild of a table without partitions, told from a {@code TRUNCATE} by its new creation time.
 *
 * <p>The ids are in {@code information_schema.INNODB_SYS_TABLES} (MariaDB) or {@code INNODB_TABLES}
 * (MySQL 8), which need the {@code PROCESS} privilege; without it (said once at INFO), and for a
 * name with characters outside ASCII (InnoDB's file-name encoding of those is not reproduced here),
 * rows changed this way are found by reconciliation, as documented; with reconciliation off they
 * are never found, and a WARN says so ({@link #NEVER_FOUND}).
 */
final class RecreatedTables {
  private static final Logger LOG = RecentEvents.logger(RecreatedTables.class);

  /**
   * The WARN when neither the InnoDB ids nor reconciliation can find a TRUNCATE: the mirrors would
   * keep the truncated rows, said nowhere else.
   */
  static final String NEVER_FOUND =
      "{} is not readable ({}) and reconciliation is off (source.reconcile_interval: 0s): a"
          + " TRUNCATE of a cached table or of one of its partitions, which fires no trigger, never"
          + " reaches clients, whose mirrors keep the truncated rows; grant PROCESS to the serving"
          + " user (it is then re-read within capture_check_interval), or turn reconciliation on";

  private final String view;
  private final Map<TableId, Seen> seen = new HashMap<>();

  /**
   * A table's InnoDB ids, by partition ({@code ""} for an unpartitioned table; {@code P#p0}, {@code
   * P#p0#SP#s0} for a partition or subpartition), and its creation time ({@code
   * information_schema.TABLES.CREATE_TIME}).
   */
  private record Seen(Map<String, Long> ids, String created) {}

  private boolean unreadable;

  /**
   * Whether the server folds table names to lower case ({@code lower_case_table_names} 1 or 2, as
   * on Windows and macOS and in some managed services): the catalog then names a table configured
   * as {@code App.Rates} {@code app/rates}. Null until read.
   */
  private Boolean foldsNames;

  /** Whether reconciliation runs ({@code source.reconcile_interval} above 0). */
  private final boolean reconciling;

  /**
   * @param reconciling whether reconciliation runs: without it, and without the {@code PROCESS}
   *     privilege, a TRUNCATE never reaches clients, and the start says so at WARN
   */
  RecreatedTables(MysqlFlavor flavor, boolean reconciling) {
    this.reconciling = reconciling;
    this.view =
        flavor == MysqlFlavor.MARIADB
            ? "information_schema.INNODB_SYS_TABLES"
            : "information_schema.INNODB_TABLES";
  }

  /**
   * The tables among {@code tables} whose rows were replaced without a trigger since the last call,
   * each with what happened, for the log: truncated, or a partition truncated, exchanged or dropped
   * (none at the first call: it only remembers them). Call it before a snapshot that reads the
   * tables, so that a TRUNCATE after the look is found by the next one.
   */
  synchronized Map<TableId, String> rowsReplaced(Connection c, Collection<TableId> tables)
      throws SQLException {
    if (foldsNames == null) {
      foldsNames = foldsNames(c);
    }
    Map<String, TableId> byName = new LinkedHashMap<>();
    for (TableId t : tables) {
      String name = innodbName(t);
      if (name != null) {
        byName.put(fold(name), t);
      }
    }
    if (unreadable || byName.isEmpty()) {
      return Map.of();
    }
    Map<TableId, Map<String, Long>> ids;
    Map<TableId, String> created;
    try {
      ids = innodbIds(c, byName);
      created = creationTimes(c, byName.values());
    } catch (SQLException e) {
      if (!TrxLooks.isAccessDenied(e)) {
        throw e;
      }
      unreadable = true;
      if (reconciling) {
        LOG.info(
            "{} is not readable ({}): a TRUNCATE of a cached table or of one of its partitions, "
                + "which fires no trigger, reaches clients through reconciliation only; grant "
                + "PROCESS to have it re-read within capture_check_interval",
            view,
            e.getMessage());
      } else {
        LOG.warn(NEVER_FOUND, view, e.getMessage());
      }
      return Map.of();
    }
    Map<TableId, String> out = new LinkedHashMap<>();
    for (Map.Entry<TableId, Map<String, Long>> e : ids.entrySet()) {
      Seen now = new Seen(e.getValue(), created.get(e.getKey()));
      Seen before = seen.put(e.getKey(), now);
      String replaced = before == null ? null : replaced(before, now);
      if (replaced != null) {
        out.put(e.getKey(), replaced);
      } else if (before != null && !before.ids.equals(now.ids)) {
        LOG.debug("{} was rebuilt or gained partitions: not re-read", e.getKey());
      }
    }
    return out;
  }

  /** What replaced rows between two looks, or null when nothing did. */
  private static String replaced(Seen before, Seen now) {
    for (Map.Entry<String, Long> b : before.ids.entrySet()) {
      Long id = now.ids.get(b.getKey());
      String what = b.getKey().isEmpty() ? "the table" : "partition " + partition(b.getKey());
      if (id == null) {
        return what
            + " is gone (ALTER TABLE ... DROP, REORGANIZE or REMOVE PARTITIONING fire no trigger)";
      }
      if (id.longValue() == b.getValue()) {
        continue;
      }
      if (b.getKey().isEmpty() && Objects.equals(before.created, now.created)) {
        return "the table was truncated (a new InnoDB table id; TRUNCATE fires no trigger)";
      }
      if (!b.getKey().isEmpty()) {
        return what
            + (Objects.equals(before.created, now.created)
                ? " was truncated or exchanged (a new InnoDB table id; TRUNCATE PARTITION and "
                    + "EXCHANGE PARTITION fire no trigger)"
                : " has a new InnoDB table id under a new creation time of the table: truncated,"
                    + " exchanged or dropped and added again beside other partition DDL, or"
                    + " rebuilt (none fires a trigger)");
      }
    }
    return null;
  }

  /**
   * {@code P#p0} or {@code P#p0#SP#s0} (any case); not an ALTER TABLE's work in progress, which
   * InnoDB names with {@code #TMP#} or {@code #tmp} after it.
   */
  static boolean isPartition(String suffix) {
    String[] parts = suffix.split("#", -1);
    return (parts.length == 2 || (parts.length == 4 && parts[2].equalsIgnoreCase("SP")))
        && parts[0].equalsIgnoreCase("P");
  }

  /** {@code P#p0#SP#s0} as {@code p0.s0}, InnoDB's encoding of its characters kept. */
  private static String partition(String suffix) {
    return suffix.replaceAll("(?i)^P#", "").replaceAll("(?i)#SP#", ".");
  }

  /**
   * Each table's InnoDB ids by partition: its own name, or its name followed by {@code #} for a
   * partition ({@code #} is encoded in names, so no other table's name starts so).
   */
  private Map<TableId, Map<String, Long>> innodbIds(Connection c, Map<String, TableId> byName)
      throws SQLException {
    StringBuilder where = new StringBuilder();
    for (int i = 0; i < byName.size(); i++) {
      where.append(i == 0 ? "" : " OR ").append("NAME = ? OR NAME LIKE ? ESCAPE '!'");
    }
    Map<TableId, Map<String, Long>> ids = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement("SELECT NAME, TABLE_ID FROM " + view + " WHERE " + where)) {
      int i = 1;
      for (String name : byName.keySet()) {
        ps.setString(i++, name);
        ps.setString(i++, name.replace("_", "!_") + "#%");
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          int hash = name.indexOf('#');
          TableId table = byName.get(fold(hash < 0 ? name : name.substring(0, hash)));
          String suffix = hash < 0 ? "" : name.substring(hash + 1);
          if (table != null && (suffix.isEmpty() || isPartition(suffix))) {
            ids.computeIfAbsent(table, t -> new HashMap<>()).put(suffix, rs.getLong(2));
          }
        }
      }
    }
    return ids;
  }

  private Map<TableId, String> creationTimes(Connection c, Collection<TableId> tables)
      throws SQLException {
    Map<String, TableId> asConfigured = new HashMap<>();
    for (TableId t : tables) {
      asConfigured.put(fold(t.schema()) + "." + fold(t.name()), t);
    }
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
          TableId t = asConfigured.get(fold(rs.getString(1)) + "." + fold(rs.getString(2)));
          if (t != null) {
            out.put(t, rs.getString(3));
          }
        }
      }
    }
    return out;
  }

  /** {@code name} as the server compares table names. */
  private String fold(String name) {
    return Boolean.TRUE.equals(foldsNames) ? name.toLowerCase(Locale.ROOT) : name;
  }

  private static boolean foldsNames(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@lower_case_table_names")) {
      return rs.next() && rs.getInt(1) != 0;
    }
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
