package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads cached tables' columns and primary keys from {@code information_schema}. */
final class Catalog {
  private static final Pattern JSON_VALID = Pattern.compile("(?i)^\\s*json_valid\\(\\s*`((?:[^`]|``)+)`\\s*\\)\\s*$");

  private Catalog() {}

  static TableSchema describe(Connection c, Dialect dialect, TableId id) throws SQLException {
    Identifiers.validate(dialect, "schema", id.schema());
    Identifiers.validate(dialect, "table", id.name());
    Identifiers.refuseDollarTag(dialect, "schema", id.schema());
    Identifiers.refuseDollarTag(dialect, "table", id.name());
    String tableType = single(c, dialect == Dialect.POSTGRESQL
        ? "SELECT table_type FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
        : "SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", id);
    if (tableType == null) {
      throw new IllegalArgumentException("table " + id.qualified() + " does not exist (or is not visible to this user)");
    }
    if (!"BASE TABLE".equalsIgnoreCase(tableType)) {
      throw new IllegalArgumentException("table " + id.qualified() + " is a " + tableType
          + ", only base tables can be cached");
    }
    if (dialect != Dialect.POSTGRESQL) {
      // the row change and its outbox row must commit or roll back together, and the tail's gap
      // rules rely on the row change being an InnoDB write of the same transaction
      String engine = single(c, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
          id);
      if (!"InnoDB".equalsIgnoreCase(engine)) {
        throw new IllegalArgumentException("table " + id.qualified() + " uses the " + engine + " engine; Tablecast "
            + "captures only InnoDB tables (changes of a non-transactional table cannot be tied to their commit)");
      }
    }
    List<ColumnInfo> columns = dialect == Dialect.POSTGRESQL ? pgColumns(c, id) : mysqlColumns(c, dialect, id);
    for (ColumnInfo col : columns) {
      Identifiers.validate(dialect, "column of table " + id.qualified() + ":", col.name());
    }
    List<String> pk = new ArrayList<>();
    String pkSql = dialect == Dialect.POSTGRESQL
        // pg_catalog, not information_schema: the latter hides constraints from a user that only
        // holds SELECT, and the server is meant to run as such a user (docs/SECURITY.md)
        ? "SELECT a.attname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
            + "JOIN pg_namespace n ON n.oid = t.relnamespace "
            + "JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) ON true "
            + "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            + "WHERE n.nspname = ? AND t.relname = ? AND i.indisprimary ORDER BY k.ord"
        : "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
            + "AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION";
    try (PreparedStatement ps = prepare(c, pkSql, id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        pk.add(rs.getString(1));
      }
    }
    if (pk.isEmpty()) {
      throw new IllegalArgumentException("table " + id.qualified()
          + " has no primary key; Tablecast caches rows by key, add a PRIMARY KEY to cache it");
    }
    return new TableSchema(id, columns, pk);
  }

  private static List<ColumnInfo> mysqlColumns(Connection c, Dialect dialect, TableId id) throws SQLException {
    Set<String> jsonChecked = new HashSet<>();
    try (PreparedStatement ps = prepare(c, "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
        + "WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?", id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Matcher m = JSON_VALID.matcher(rs.getString(1));
        if (m.matches()) {
          jsonChecked.add(m.group(1).replace("``", "`"));
        }
      }
    } catch (SQLException e) {
      // MySQL 8.0.15 and older have no CHECK_CONSTRAINTS; MySQL has a real JSON type anyway.
      if (dialect == Dialect.MARIADB) {
        throw e;
      }
    }
    List<ColumnInfo> columns = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM information_schema.COLUMNS "
        + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String name = rs.getString(1);
        String columnType = rs.getString(3);
        ColumnKind kind = ColumnTypes.mysql(rs.getString(2), columnType, jsonChecked.contains(name));
        String dbType = kind == ColumnKind.JSON ? "json" : columnType;
        columns.add(checked(id, name, dbType, kind));
      }
    }
    return columns;
  }

  private static List<ColumnInfo> pgColumns(Connection c, TableId id) throws SQLException {
    Set<String> enums = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname || '.' || t.typname FROM pg_type t "
        + "JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'e'"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        enums.add(rs.getString(1));
      }
    }
    List<ColumnInfo> columns = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, "SELECT column_name, data_type, udt_schema, udt_name, "
        + "character_maximum_length, numeric_precision, numeric_scale FROM information_schema.columns "
        + "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position", id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String name = rs.getString(1);
        String dataType = rs.getString(2);
        String udt = rs.getString(4);
        ColumnKind kind = ColumnTypes.postgresql(dataType, udt, enums.contains(rs.getString(3) + "." + udt));
        String dbType = udt;
        if (rs.getObject(5) != null) {
          dbType += "(" + rs.getInt(5) + ")";
        } else if ("numeric".equals(udt) && rs.getObject(6) != null) {
          dbType += "(" + rs.getInt(6) + "," + rs.getInt(7) + ")";
        } else if ("ARRAY".equals(dataType)) {
          dbType = udt.substring(1) + "[]";
        }
        columns.add(checked(id, name, dbType, kind));
      }
    }
    return columns;
  }

  private static ColumnInfo checked(TableId id, String column, String dbType, ColumnKind kind) {
    if (kind == null) {
      throw new IllegalArgumentException("column " + id.qualified() + "." + column + " has type " + dbType
          + ", which Tablecast does not support (see docs/TYPES.md)");
    }
    return new ColumnInfo(column, dbType, kind);
  }

  private static PreparedStatement prepare(Connection c, String sql, TableId id) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setString(1, id.schema());
    ps.setString(2, id.name());
    return ps;
  }

  private static String single(Connection c, String sql, TableId id) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, id); ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
