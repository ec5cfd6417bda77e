package io.tablecast.server.mysql;

import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.Catalog;
import io.tablecast.server.capture.CatalogColumn;
import io.tablecast.server.capture.Identifiers;
import io.tablecast.server.capture.InstalledTrigger;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.tail.DatabaseInstance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a MariaDB/MySQL table is described from {@code information_schema}: checked (a base table,
 * InnoDB), its columns and kinds (a {@code json_valid} check makes MariaDB's LONGTEXT a JSON
 * column), its key.
 */
final class MysqlCatalogQueries {
  private static final Pattern JSON_VALID =
      Pattern.compile("(?i)^\\s*json_valid\\(\\s*`((?:[^`]|``)+)`\\s*\\)\\s*$");

  private final MysqlFlavor flavor;

  MysqlCatalogQueries(MysqlFlavor flavor) {
    this.flavor = flavor;
  }

  void checkTable(Connection c, TableId id) throws SQLException {
    String tableType =
        Catalog.single(
            c,
            "SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            id);
    // MariaDB's system-versioned tables are base tables with a history: their triggers fire for
    // every change of a current row, and every read the server makes (snapshot, changed rows,
    // reconciliation) sees only the current rows, which is the table a mirror holds
    Catalog.requireBaseTable(
        c, id, "SYSTEM VERSIONED".equalsIgnoreCase(tableType) ? "BASE TABLE" : tableType);
    // the row change and its outbox row must commit or roll back together, and the tail's gap
    // rules rely on the row change being an InnoDB write of the same transaction
    String engine =
        Catalog.single(
            c,
            "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            id);
    if (!"InnoDB".equalsIgnoreCase(engine)) {
      throw new IllegalArgumentException(
          "table "
              + id.qualified()
              + " uses the "
              + engine
              + " engine; Tablecast "
              + "captures only InnoDB tables (changes of a non-transactional table cannot be tied to their commit)");
    }
  }

  List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    Set<String> jsonChecked = new HashSet<>();
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                    + "WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?",
                id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Matcher m = JSON_VALID.matcher(rs.getString(1));
        if (m.matches()) {
          jsonChecked.add(m.group(1).replace("``", "`"));
        }
      }
    } catch (SQLException e) {
      // MySQL 8.0.15 and older have no CHECK_CONSTRAINTS; MySQL has a real JSON type anyway.
      if (flavor.checkConstraintsRequired) {
        throw e;
      }
    }
    List<CatalogColumn> columns = new ArrayList<>();
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM "
                    + "information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String name = rs.getString(1);
        String dataType = rs.getString(2);
        String columnType = rs.getString(3);
        ColumnKind kind = MysqlTypes.kind(dataType, columnType, jsonChecked.contains(name));
        if (kind == null) {
          throw MysqlTypes.unsupported(id, name, columnType);
        }
        columns.add(CatalogColumn.of(name, MysqlTypes.dbType(dataType, columnType, kind), kind));
      }
    }
    return columns;
  }

  /**
   * The PRIMARY key or, without one, the unique index on NOT NULL columns with the fewest columns
   * (then by name), without prefix or functional parts (the key rows are read back by).
   *
   * @throws IllegalArgumentException when that key has a spatial column (sent as GeoJSON, it cannot
   *     be read back by)
   */
  List<String> primaryKey(Connection c, TableId id) throws SQLException {
    Map<String, List<String>> indexes = new LinkedHashMap<>();
    Set<String> unusable = new HashSet<>();
    // STATISTICS alone: joined with COLUMNS, MariaDB reads every table's columns (38 ms a table)
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT INDEX_NAME, COLUMN_NAME, SUB_PART, NULLABLE FROM information_schema.STATISTICS "
                    + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0 "
                    + "ORDER BY INDEX_NAME <> 'PRIMARY', INDEX_NAME, SEQ_IN_INDEX",
                id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String index = rs.getString(1);
        String column = rs.getString(2);
        indexes.computeIfAbsent(index, k -> new ArrayList<>()).add(column);
        boolean keyable =
            column != null && rs.getObject(3) == null && !"YES".equals(rs.getString(4));
        if (!keyable && !index.equals("PRIMARY")) {
          unusable.add(index); // a functional part, a prefix, or a column that may be NULL
        }
      }
    }
    Map<String, String> types = new HashMap<>();
    if (!indexes.isEmpty()) {
      try (PreparedStatement ps =
              Catalog.prepare(
                  c,
                  "SELECT COLUMN_NAME, DATA_TYPE, GENERATION_EXPRESSION FROM information_schema.COLUMNS "
                      + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
                  id);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          types.put(rs.getString(1), rs.getString(2));
          if ("ROW END".equalsIgnoreCase(rs.getString(3))) {
            // MariaDB appends a system-versioned table's row end to each of its unique keys, so
            // that history rows keep them unique; among the current rows, the rows a mirror
            // holds, the key is unique without it, and a DELETE's trigger sees it already set to
            // the time of the delete, not the value the mirror keyed the row by
            String rowEnd = rs.getString(1);
            indexes.values().forEach(columns -> columns.remove(rowEnd));
          }
        }
      }
    }
    List<String> key =
        indexes.entrySet().stream()
            .filter(e -> !unusable.contains(e.getKey()))
            .min(
                Comparator.comparing(
                        (Map.Entry<String, List<String>> e) -> !e.getKey().equals("PRIMARY"))
                    .thenComparing(e -> e.getValue().size())
                    .thenComparing(Map.Entry::getKey))
            .map(Map.Entry::getValue)
            .orElse(List.of());
    for (String column : key) {
      if (MysqlTypes.isSpatial(types.get(column))) {
        throw new IllegalArgumentException(
            "column "
                + id.qualified()
                + "."
                + column
                + " has type "
                + types.get(column)
                + " and is part of the "
                + (indexes.containsKey("PRIMARY") ? "primary key" : "unique key it is cached by")
                + ", which Tablecast cannot read rows back by "
                + "(it sends spatial values as GeoJSON); give the table a key without spatial columns to cache it");
      }
    }
    return key;
  }

  /**
   * {@code information_schema.TABLES.TABLE_ROWS}: InnoDB's estimate from its sampled statistics
   * (off by up to about half until {@code ANALYZE TABLE}); -1 when it has none.
   */
  long estimatedRows(Connection c, TableId id) throws SQLException {
    String rows =
        Catalog.single(
            c,
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            id);
    return rows == null ? -1 : Long.parseLong(rows);
  }

  /**
   * The MySQL/MariaDB server {@code c} reaches: its {@code server_id} (distinct on every server of
   * a replication topology), host and port, and when it started (from its uptime, whole seconds:
   * one second of slack each way).
   */
  static DatabaseInstance instance(Connection c) throws SQLException {
    String name;
    long now;
    long uptime;
    try (Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery("SELECT @@server_id, @@hostname, @@port, UNIX_TIMESTAMP()")) {
        rs.next();
        name = "server_id " + rs.getLong(1) + " on " + rs.getString(2) + ":" + rs.getInt(3);
        now = rs.getLong(4);
      }
      try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Uptime'")) {
        uptime = rs.next() ? rs.getLong(2) : 0;
      }
    }
    return new DatabaseInstance(name, Instant.ofEpochSecond(now - uptime), Duration.ofSeconds(1));
  }

  /**
   * Triggers named {@code tablecast_*} whose statement writes to {@code outbox}, on any table:
   * found by what they do, so triggers of tables since removed from {@code cached_tables} are found
   * too. A row trigger's owner is the table its statement records (a table renamed away takes its
   * triggers along, still recording the old name); a parent's key-recording trigger's owner is the
   * cached table whose rows it records.
   */
  static List<InstalledTrigger> installedTriggers(Connection c, String outbox) throws SQLException {
    List<InstalledTrigger> out = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, ACTION_STATEMENT "
                    + "FROM information_schema.TRIGGERS WHERE TRIGGER_NAME LIKE 'tablecast\\_%' "
                    + "ORDER BY 1, 2, 3");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String statement = rs.getString(4);
        if (statement != null && statement.contains(outbox)) {
          TableId table = new TableId(rs.getString(1), rs.getString(2));
          out.add(new InstalledTrigger(table, rs.getString(3), recorded(statement, table)));
        }
      }
    }
    return out;
  }

  /**
   * The cached table a parent's key-recording trigger records, from its body as the catalog shows
   * it ({@code information_schema.TRIGGERS.ACTION_STATEMENT}): the table name its outbox rows carry
   * (a trigger made before 2026-12-06 could record several; the first is given), or null when the
   * body is not one of these triggers'.
   */
  private static TableId recordedBy(String body) {
    int insert = body.indexOf("(table_name, op, new_key, old_key)");
    int select = insert < 0 ? -1 : body.indexOf("SELECT '", insert);
    if (select < 0) {
      return null;
    }
    StringBuilder name = new StringBuilder();
    for (int i = select + "SELECT '".length(); i < body.length(); i++) {
      char ch = body.charAt(i);
      if (ch == '\'' && i + 1 < body.length() && body.charAt(i + 1) == '\'') {
        name.append(ch);
        i++;
      } else if (ch == '\'') {
        int dot = name.indexOf(".");
        return dot < 0 ? null : new TableId(name.substring(0, dot), name.substring(dot + 1));
      } else {
        name.append(ch);
      }
    }
    return null;
  }

  /**
   * The table a row trigger's outbox INSERT records (sql/triggers/mysql/trigger.sql), or {@code
   * on}.
   */
  private static TableId recorded(String statement, TableId on) {
    String values = "(table_name, op, new_key, old_key) VALUES (";
    int at = statement.indexOf(values);
    if (!statement.startsWith("INSERT INTO ") || at < 0) {
      // a key-recording trigger of a parent (BEGIN ... END): it records a table its actions change
      TableId child = recordedBy(statement);
      return child == null ? on : child;
    }
    String literal = Identifiers.literal(on.qualified());
    if (statement.startsWith(literal, at + values.length())) {
      return on;
    }
    int start = at + values.length() + 1;
    int end = statement.indexOf("', '", start);
    String recorded = end < 0 ? "" : statement.substring(start, end).replace("''", "'");
    int dot = recorded.indexOf('.');
    return dot < 0
        ? new TableId(on.schema(), recorded)
        : new TableId(recorded.substring(0, dot), recorded.substring(dot + 1));
  }
}
