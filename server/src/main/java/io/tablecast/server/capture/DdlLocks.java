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
