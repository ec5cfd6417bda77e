package io.tablecast.server.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** PostgreSQL extensions some type tests need, created once per database (they are database-wide). */
public final class PostgresExtensions {
  private PostgresExtensions() {}

  /**
   * Creates the {@code citext} extension (contrib, shipped with PostgreSQL) in schema
   * {@code public} unless the database has it, and returns the qualified type name.
   */
  public static synchronized String citext(TestDatabases.Isolated db) {
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      for (int attempt = 1; ; attempt++) {
        String schema = extensionSchema(s, "citext");
        if (schema != null) {
          return "\"" + schema + "\".citext";
        }
        try {
          s.execute("CREATE EXTENSION IF NOT EXISTS citext SCHEMA public");
        } catch (SQLException e) {
          if (attempt >= 3) { // another test JVM creating it at the same instant makes one attempt fail
            throw e;
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the citext extension (PostgreSQL contrib) for the tests: "
          + e.getMessage(), e);
    }
  }

  private static String extensionSchema(Statement s, String extension) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
        + "ON n.oid = e.extnamespace WHERE e.extname = '" + extension + "'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
