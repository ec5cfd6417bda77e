package io.tablecast.server.capture;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Connections for a background thread's short statements (a heartbeat, a pruning round, a check),
 * whose answer must come within a bound. A connection that goes silent while a statement is on it
 * (the database's host gone without a word, a firewall or NAT that forgot the connection, a standby
 * promoted behind the address) would otherwise keep its thread waiting for as long as the operating
 * system keeps the connection, for ever where something still acknowledges its packets; the pool
 * tests only the connections it lends, not one at work. Here the driver gives the statement up when
 * no answer has come within the bound ({@link Connection#setNetworkTimeout}): the statement fails,
 * the connection is closed (the pool drops it), and the thread goes on to its next round on
 * another. The pool restores the connection's own timeout when it is returned; a connection of its
 * own ({@link #bound}) keeps it until closed.
 *
 * <p>Only for statements that are short by nature, where giving one up and making it again costs
 * nothing: the tail's reads, whose length depends on the data, are watched by asking the database
 * instead ({@code tail.LostAnswers}).
 */
public final class BoundedAnswers {
  private BoundedAnswers() {}

  /**
   * A connection of {@code pool} whose statements fail when no answer has come within {@code
   * within}.
   */
  public static Connection borrow(DataSource pool, Duration within) throws SQLException {
    return bound(pool.getConnection(), within);
  }

  /**
   * {@code e}, or, when the database's answer did not come in time (the driver gave the statement
   * or the connecting up), an exception that says so: {@code what} had no answer from the database
   * within {@code within} (null: the driver's own bound), which {@code source.answer_timeout} sets,
   * and the way out.
   */
  public static SQLException sayingUnanswered(SQLException e, String what, Duration within) {
    if (!timedOut(e)) {
      return e;
    }
    return new SQLException(
        "the database did not answer "
            + what
            + (within == null ? "" : " within " + within.toSeconds() + " s")
            + ": it, or the network to it, may have stopped answering (try again once it answers;"
            + " where its answers are slow for long, raise source.answer_timeout, which sets the"
            + " bound): "
            + e.getMessage(),
        e.getSQLState(),
        e.getErrorCode(),
        e);
  }

  /** Whether {@code e} or a cause is a socket's timeout, or a driver's word that time ran out. */
  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException
          || String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains("timed out")) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code c}, whose statements fail from now on when no answer has come within {@code within};
   * closed when that cannot be set.
   */
  public static Connection bound(Connection c, Duration within) throws SQLException {
    try {
      c.setNetworkTimeout(Runnable::run, Math.toIntExact(Math.max(1, within.toMillis())));
      return c;
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }
}
