package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** MySQL/MariaDB: foreign-key actions change child rows without firing triggers. */
final class ForeignKeyCheck {
  private ForeignKeyCheck() {}

  /**
   * @throws IllegalStateException naming the constraint, when a foreign key with ON DELETE/UPDATE
   *     CASCADE, SET NULL or SET DEFAULT has a cached table as its child
   */
  static void refuseCascadesIntoCachedTables(Connection c, List<TableSchema> tables) throws SQLException {
    for (TableSchema t : tables) {
      try (PreparedStatement ps = c.prepareStatement("SELECT CONSTRAINT_NAME, REFERENCED_TABLE_NAME, DELETE_RULE, UPDATE_RULE "
          + "FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? "
          + "AND (DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT') OR UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT'))")) {
        ps.setString(1, t.id().schema());
        ps.setString(2, t.id().name());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            throw new IllegalStateException("foreign key " + rs.getString(1) + " on cached table " + t.id()
                + " (referencing " + rs.getString(2) + ", ON DELETE " + rs.getString(3) + ", ON UPDATE "
                + rs.getString(4) + ") changes rows without firing triggers on MySQL/MariaDB, so the cache would "
                + "drift; change it to RESTRICT / NO ACTION and cascade in the application, or do not cache "
                + t.id());
          }
        }
      }
    }
  }
}
