package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * How a dialect keeps capture DDL ({@code CREATE TRIGGER}, {@code DROP TRIGGER}, {@code ENABLE
 * ALWAYS}) from stalling a busy table ({@link PatientDdl}). Such a statement needs a lock that an
 * open transaction on the table holds until it ends; while it waits in the lock queue, every writer
 * of the table waits behind it (on MySQL, every reader too). With its waits bounded, the statement
 * gives way and is tried again, so writers are held up for at most one bounded wait.
 */
public interface DdlLocks {

  /** The longest one capture DDL statement waits for a lock (writers wait at most this). */
  Duration LOCK_WAIT = Duration.ofSeconds(2);

  /**
   * The statement that bounds each lock wait of the statements after it to {@code wait}: in the
   * transaction (PostgreSQL) or the session (MySQL).
   */
  String limitWaits(Duration wait);

  /**
   * The statement that lifts {@link #limitWaits} again, or null when it ends with the transaction.
   */
  String liftLimit();

  /**
   * How long a transaction of capture DDL may wait for its client before the database ends its
   * session ({@link #limitIdleInTransaction}); its statements follow one another at once. Longer
   * than the tail takes to give up a statement whose answer was lost (about 10 s, on the word of
   * the database, which must still show the session then: {@code tail.LostAnswers}).
   */
  Duration IDLE_IN_TRANSACTION = Duration.ofSeconds(30);

  /**
   * The statement that has the database end the session when its DDL transaction waits longer than
   * {@code idle} for its client, or null where each DDL statement commits (MySQL). A transaction
   * whose answer was lost on the way (a host gone without a word, a NAT that forgot the connection)
   * would otherwise keep the locks it took, and every writer of the table waiting behind them,
   * until the database's keepalive finds the connection gone: hours by default.
   */
  default String limitIdleInTransaction(Duration idle) {
    return null;
  }

  /** Whether {@code e} is a lock wait that ran out of its bound. */
  boolean isLockWaitTimeout(SQLException e);

  /**
   * Whether {@code e} refused this user the read of a table: its {@code SELECT} privilege revoked,
   * or a table created anew without the grant. The tail leaves such a table's reads aside until it
   * may read it, as it does a table whose lock DDL waits for.
   */
  boolean isReadDenied(SQLException e);

  /**
   * The sessions that may hold the lock, longest open first, each with its id, client and how long
   * its transaction has been open; best effort: empty when this user cannot see them.
   */
  List<String> holders(Connection c, List<TableId> tables) throws SQLException;

  /**
   * The sessions waiting for a lock on {@code table} (the DDL among them), longest waiting first,
   * each with its id, how long it has waited and its statement; best effort: empty when this user
   * cannot see them.
   */
  List<String> waiters(Connection c, TableId table) throws SQLException;
}
