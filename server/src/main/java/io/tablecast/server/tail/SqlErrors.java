package io.tablecast.server.tail;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

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
    String lastConnect = lastConnectFailure(e);
    return lastConnect == null
        ? e.toString()
        : e + " (the last try to connect: " + lastConnect + ")";
  }

  /**
   * {@code e}'s message for the clients' stale reason; for the pool's "connection is not available"
   * after a failed try to connect (the database refuses connections, or is not there), that
   * failure, which the pool's message does not name.
   */
  static String inFewWords(Throwable e) {
    String lastConnect = lastConnectFailure(e);
    return lastConnect == null
        ? e.getMessage()
        : "no connection to the database could be made: " + lastConnect;
  }

  /**
   * The kind of the failure {@link #inFewWords} names: its SQLSTATE class (the first two
   * characters: 08 a connection that failed, 28 credentials refused, 53 resources such as
   * connections exhausted), null when it has none.
   */
  static String kind(Throwable e) {
    Throwable named =
        lastConnectFailure(e) == null ? e : e.getCause(); // the try to connect the pool hides
    String state = named instanceof SQLException s ? s.getSQLState() : null;
    return state == null || state.length() < 2 ? null : state.substring(0, 2);
  }

  /**
   * The failed try to connect behind the pool's timeout {@code e} (HikariCP gives it as the cause);
   * null for any other error, and for a timeout while every connection was busy.
   */
  private static String lastConnectFailure(Throwable e) {
    return e instanceof SQLTransientConnectionException && e.getCause() != null
        ? e.getCause().getMessage()
        : null;
  }
}
