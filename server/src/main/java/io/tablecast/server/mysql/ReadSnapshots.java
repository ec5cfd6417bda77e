package io.tablecast.server.mysql;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The consistent snapshots the MySQL/MariaDB tail reads in: begun for one transaction only (the
 * pool's sessions stay READ COMMITTED, so the pool has nothing to reset when a connection is given
 * back), committed, rolled back; and the last read that found rows, whose snapshot is committed
 * only after its batch has left the tail.
 *
 * <p>That last commit: a read-only transaction's commit changes nothing, so it needs no round trip
 * of its own, on a batch's path or off it. The read's connection is held, its snapshot open, and
 * taken by the next read ({@link #hold}, {@link #takeHeld}), which sends {@link #COMMIT} first in
 * its own first statement. While reads keep finding rows one connection goes from read to read;
 * after {@link #DEFAULT_REUSE} of that it is committed and given back, so that the pool can retire
 * it ({@code maxLifetime}) and test its others. The tail's thread holds and takes; closing the
 * source commits what is still held, maybe from another thread, so the three are synchronized
 * (never contended while the tail runs).
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

  /** Ends the held snapshot: sent first in the next read's multi-statement. */
  static final String COMMIT = "COMMIT; ";

  /** How long one connection goes from read to read before it is given back to the pool. */
  static final Duration DEFAULT_REUSE = Duration.ofSeconds(1);

  private final long reuseNanos;
  private Connection held;
  private long heldSince;
  private Connection taken;
  private long takenSince;

  ReadSnapshots() {
    this(DEFAULT_REUSE);
  }

  /**
   * @param reuse how long one connection may go from read to read before it is given back
   */
  ReadSnapshots(Duration reuse) {
    this.reuseNanos = reuse.toNanos();
  }

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

  /**
   * Holds {@code c}, its snapshot open, until {@link #takeHeld} or {@link #commitHeld} (commits one
   * held before).
   */
  synchronized void hold(Connection c) {
    commitHeld();
    held = c;
    heldSince = c == taken ? takenSince : System.nanoTime();
    taken = null;
  }

  /**
   * The held connection, its snapshot still open, or null: the caller owes it a {@link #COMMIT}
   * (sent first in its next statement) or a rollback before giving it back.
   */
  synchronized Connection takeHeld() {
    if (held != null && System.nanoTime() - heldSince >= reuseNanos) {
      commitHeld(); // long enough from read to read: back to the pool, the next read takes one
    }
    Connection c = held;
    held = null;
    taken = c;
    takenSince = heldSince;
    return c;
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
