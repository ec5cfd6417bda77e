package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A capture trigger present in the catalog: the table it is on and its name. Found by what it
 * does, not by configuration, so that triggers of tables since removed from {@code cached_tables}
 * are found too.
 */
record InstalledTrigger(TableId table, String name) {

  String dropSql(Dialect dialect) {
    return dialect == Dialect.POSTGRESQL
        ? "DROP TRIGGER IF EXISTS " + Identifiers.quote(dialect, name) + " ON " + Identifiers.quote(dialect, table)
        : "DROP TRIGGER IF EXISTS " + Identifiers.quote(dialect, table.schema()) + "." + Identifiers.quote(dialect, name);
  }

  /**
   * The capture triggers of one installation, on any table: MySQL/MariaDB triggers named
   * {@code tablecast_*} whose statement writes to {@code outbox} (quoted {@code schema.table});
   * PostgreSQL triggers that call the capture function of {@code schema}.
   */
  static List<InstalledTrigger> find(Connection c, Dialect dialect, String schema, String outbox) throws SQLException {
    List<InstalledTrigger> out = new ArrayList<>();
    if (dialect == Dialect.POSTGRESQL) {
      try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname, r.relname, t.tgname FROM pg_trigger t "
          + "JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace "
          + "WHERE NOT t.tgisinternal AND t.tgfoid = to_regprocedure(?)::oid ORDER BY 1, 2, 3")) {
        ps.setString(1, Identifiers.quote(dialect, schema) + ".tablecast_capture()");
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new InstalledTrigger(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3)));
          }
        }
      }
      return out;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, "
        + "ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_NAME LIKE 'tablecast\\_%' ORDER BY 1, 2, 3");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String statement = rs.getString(4);
        if (statement != null && statement.contains(outbox)) {
          out.add(new InstalledTrigger(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3)));
        }
      }
    }
    return out;
  }

  /** Names of the {@code tablecast_*} triggers on one MySQL/MariaDB table, whatever they write to. */
  static List<String> mysqlNames(Connection c, TableId id) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT TRIGGER_NAME FROM information_schema.TRIGGERS "
        + "WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME LIKE 'tablecast\\_%'")) {
      ps.setString(1, id.schema());
      ps.setString(2, id.name());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }
}
