package io.tablecast.server.capture;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;

/**
 * Runs capture DDL with short lock waits ({@link DdlLocks}), tried again until the lock is free: an
 * install beside a long transaction on a cached table waits for that transaction without holding up
 * the table's writers meanwhile (before, one open transaction made every writer of the table wait
 * for the install, which waited for the transaction). While it waits it says, every {@link
 * #TELL_EVERY}, which sessions hold the lock; after {@link #GIVE_UP_AFTER} it gives up, naming
 * them.
 */
public final class PatientDdl {
  private static final Logger LOG = RecentEvents.logger(TriggerInstaller.class);

  /** The pause between tries, in which the writers queued behind a try go through. */
  static final Duration PAUSE = Duration.ofSeconds(1);

  /** How often a wait is told. */
  static final Duration TELL_EVERY = Duration.ofSeconds(10);

  /** How long DDL keeps trying before it fails. */
  public static final Duration GIVE_UP_AFTER = Duration.ofMinutes(10);

  private final Connection connection;
  private final Dialect dialect;
  private final List<TableId> tables;
  private final Duration giveUpAfter;

  public PatientDdl(
      Connection connection, Dialect dialect, List<TableId> tables, Duration giveUpAfter) {
    this.connection = connection;
    this.dialect = dialect;
    this.tables = tables;
    this.giveUpAfter = giveUpAfter;
  }

  /** Runs {@code statements} in order; all or nothing where DDL is transactional (PostgreSQL). */
  public void run(String task, List<String> statements) throws SQLException {
    DdlLocks locks = dialect.ddlLocks();
    Waits waits = new Waits(task);
    try (Progress progress = Progress.start(task, "statements", statements.size(), LOG)) {
      if (dialect.transactionalDdl()) {
        while (!inOneTransaction(locks, statements, waits)) {
          waits.pause();
        }
        progress.advance(statements.size());
        return;
      }
      connection.setAutoCommit(true);
      try (Statement s = connection.createStatement()) {
        s.execute(locks.limitWaits(DdlLocks.LOCK_WAIT));
        try {
          for (String sql : statements) {
            while (!ranOne(s, locks, sql, waits)) {
              waits.pause();
            }
            progress.advance(1);
          }
        } finally {
          if (!connection.isClosed()) { // closed: a statement's answer did not come; say that
            s.execute(locks.liftLimit());
          }
        }
      }
    }
  }

  /** One try of the whole transaction: false when a lock wait ran out (rolled back). */
  private boolean inOneTransaction(DdlLocks locks, List<String> statements, Waits waits)
      throws SQLException {
    connection.setAutoCommit(false);
    try (Statement s = connection.createStatement()) {
      // first, sent with the transaction's BEGIN: until it runs the role's own limit holds, and a
      // short one (50 ms) ended the session when the client paused between two statements
      String idle = locks.limitIdleInTransaction(DdlLocks.IDLE_IN_TRANSACTION);
      if (idle != null) {
        s.execute(idle);
      }
      s.execute(locks.limitWaits(DdlLocks.LOCK_WAIT));
      for (String sql : statements) {
        s.execute(sql);
      }
      connection.commit();
      return true;
    } catch (SQLException e) {
      rollback();
      if (!locks.isLockWaitTimeout(e)) {
        throw e;
      }
      waits.waited(locks);
      return false;
    } catch (RuntimeException e) {
      rollback();
      throw e;
    } finally {
      if (!connection.isClosed()) {
        connection.setAutoCommit(true);
      }
    }
  }

  /**
   * Rolls the transaction back, unless the connection was closed under it (the driver gave a
   * statement up for its answer, {@link TriggerInstaller#answerWithin}): the error that closed it
   * is the one to tell, not that the connection is closed.
   */
  private void rollback() throws SQLException {
    if (!connection.isClosed()) {
      connection.rollback();
    }
  }

  /** One try of one statement: false when its lock wait ran out. */
  private boolean ranOne(Statement s, DdlLocks locks, String sql, Waits waits) throws SQLException {
    try {
      s.execute(sql);
      return true;
    } catch (SQLException e) {
      if (!locks.isLockWaitTimeout(e)) {
        throw e;
      }
      waits.waited(locks);
      return false;
    }
  }

  /** The waits of one run: when it started waiting, when it last told, when it gives up. */
  private final class Waits {
    private final String task;
    private final long startNanos = System.nanoTime();
    private long toldNanos;
    private int tries;

    Waits(String task) {
      this.task = task;
    }

    void waited(DdlLocks locks) throws SQLException {
      tries++;
      long now = System.nanoTime();
      Duration waiting = Duration.ofNanos(now - startNanos);
      if (waiting.compareTo(giveUpAfter) >= 0) {
        throw new SQLException(
            task
                + " could not take the lock it needs on "
                + tables
                + " in "
                + giveUpAfter.toSeconds()
                + " s ("
                + tries
                + " tries of "
                + DdlLocks.LOCK_WAIT.toSeconds()
                + " s): "
                + holders(locks)
                + "; end that transaction, or run it again when the tables are quieter");
      }
      if (tries == 1 || now - toldNanos >= TELL_EVERY.toNanos()) {
        toldNanos = now;
        LOG.warn(
            "{} waits for a lock on {} held by an open transaction ({} tries of {} s so far;"
                + " the tables' writers are not held up meanwhile): {}",
            task,
            tables,
            tries,
            DdlLocks.LOCK_WAIT.toSeconds(),
            holders(locks));
      }
    }

    void pause() throws SQLException {
      try {
        Thread.sleep(PAUSE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException(task + " interrupted while waiting for a lock", e);
      }
    }

    private String holders(DdlLocks locks) throws SQLException {
      List<String> holders = locks.holders(connection, tables);
      return holders.isEmpty()
          ? "no session holding it is visible to this user"
          : "open transactions: " + String.join("; ", holders);
    }
  }
}
