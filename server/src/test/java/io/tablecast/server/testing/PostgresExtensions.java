package io.tablecast.server.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * PostgreSQL extensions some type tests need, created once per database (they are database-wide).
 */
public final class PostgresExtensions {
  private PostgresExtensions() {}

  /**
   * Creates the {@code citext} extension (contrib, shipped with PostgreSQL) in schema {@code
   * public} unless the database has it, and returns the qualified type name.
   */
  public static String citext(TestDatabases.Isolated db) {
    return type(db, "citext");
  }

  /** {@code hstore} (contrib), as {@link #citext}. */
  public static String hstore(TestDatabases.Isolated db) {
    return type(db, "hstore");
  }

  /** {@code ltree} (contrib), as {@link #citext}. */
  public static String ltree(TestDatabases.Isolated db) {
    return type(db, "ltree");
  }

  /**
   * Creates the extension that defines the type {@code name} unless present; returns the qualified
   * type name.
   */
  private static synchronized String type(TestDatabases.Isolated db, String name) {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      for (int attempt = 1; ; attempt++) {
        String schema = extensionSchema(s, name);
        if (schema != null) {
          return "\"" + schema + "\"." + name;
        }
        try {
          s.execute("CREATE EXTENSION IF NOT EXISTS " + name + " SCHEMA public");
        } catch (SQLException e) {
          if (attempt
              >= 3) { // another test JVM creating it at the same instant makes one attempt fail
            throw e;
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create the "
              + name
              + " extension (PostgreSQL contrib) for the tests: "
              + e.getMessage(),
          e);
    }
  }

  private static String extensionSchema(Statement s, String extension) throws SQLException {
    try (ResultSet rs =
        s.executeQuery(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
                + "ON n.oid = e.extnamespace WHERE e.extname = '"
                + extension
                + "'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
