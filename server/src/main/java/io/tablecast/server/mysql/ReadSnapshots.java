package io.tablecast.server.mysql;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;

/**
 * The consistent snapshots the MySQL/MariaDB tail reads in: begun for one transaction only (the
 * pool's sessions stay READ COMMITTED, so the pool has nothing to reset when a connection is given
 * back), committed, rolled back; and the last read that found rows, whose snapshot is committed
 * only after its batch has left the tail.
 *
 * <p>That last commit: a read-only transaction's commit changes nothing, so its round trip need not
 * delay a change. The read's connection is held, its snapshot open, and committed (and given back)
 * at the start of the next poll, inside the pause after rows ({@link #hold}, {@link #commitHeld}).
 * The tail's thread holds and commits; closing the source may commit from another thread, so the
 * two are synchronized (never contended while the tail runs).
 */
final class ReadSnapshots {
  private static final Logger LOG = RecentEvents.logger(ReadSnapshots.class);

  /**
   * Begins a consistent snapshot, read-only, in REPEATABLE READ for this transaction only: two
   * statements, each ending in {@code ;}, to run before others in one multi-statement ({@link
   * MysqlDialect#poolProperties}).
   */
  static final String BEGIN =
      "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; "
          + "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY; ";

  private Connection held;

  /** Begins a snapshot on {@code s}'s connection ({@link #BEGIN}, one round trip). */
  static void begin(Statement s) throws SQLException {
    s.execute(BEGIN.substring(0, BEGIN.length() - 2)); // without the last "; "
  }

  static void commit(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("COMMIT");
    }
  }

  static void rollbackQuietly(Connection c) {
    try (Statement s = c.createStatement()) {
      s.execute("ROLLBACK");
    } catch (SQLException ignored) {
      // broken connection, the pool evicts it
    }
  }

  /** Holds {@code c}, its snapshot open, until {@link #commitHeld} (commits one held before). */
  synchronized void hold(Connection c) {
    commitHeld();
    held = c;
  }

  /**
   * Commits the held read's snapshot and gives its connection back; a failure is logged, not
   * thrown: the read's batch stands, and a broken connection is evicted by the pool.
   */
  synchronized void commitHeld() {
    Connection c = held;
    if (c == null) {
      return;
    }
    held = null;
    try (c) {
      commit(c);
    } catch (SQLException e) {
      LOG.debug(
          "Committing the last read's snapshot failed (its batch stands): {}", e.getMessage());
    }
  }
}
