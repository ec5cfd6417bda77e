package io.tablecast.server.tail;

import java.sql.SQLException;

/** A database error as the tail logs it, with the way out where the error alone does not say. */
final class SqlErrors {
  private SqlErrors() {}

  /**
   * {@code e} as text; for PostgreSQL's "prepared statement ... does not exist" (26000) and "...
   * already exists" (42P05), which a pooler in transaction mode causes (PgBouncer hands each
   * transaction another server session, and pgjdbc names statements it reuses), the setting that
   * avoids them.
   */
  static String describe(Throwable e) {
    if (e instanceof SQLException s
        && ("26000".equals(s.getSQLState()) || "42P05".equals(s.getSQLState()))
        && String.valueOf(s.getMessage()).contains("prepared statement")) {
      return e
          + " (the connection goes through a pooler in transaction mode, such as PgBouncer: add"
          + " prepareThreshold=0 to source.jdbc_url, docs/CONFIGURATION.md)";
    }
    return e.toString();
  }
}
