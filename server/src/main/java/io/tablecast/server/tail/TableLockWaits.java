package io.tablecast.server.tail;

import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * The cached tables whose lock a read on the tail's thread was not granted within {@link #WAIT}:
 * left out of the tail's reads until a thread of their own is granted it.
 *
 * <p>DDL ({@code ALTER TABLE}, {@code TRUNCATE}, ...) waits for every open transaction that has
 * read its table, and every later statement that needs the table, a plain read too, queues behind
 * it: an application's transaction left open for an hour held the tail's read of that table for an
 * hour, and with it the changes of every other table. So the tail's reads of a table wait at most
 * {@link #WAIT} for its lock; a table not granted it is held here (its reads, and what depends on
 * them, wait; when the mirrors lack something meanwhile it is stale for its clients, with cause
 * {@value #CAUSE}), and the tail reads the others on without trying it again. A thread of its own
 * asks for the lock every second and names who waits for it and who may hold it, after {@link
 * #FIRST_WAIT_LOG} and then every minute; once it is granted, the next read tries the table again.
 * The tail thread holds and releases tables; the probe thread only marks them free.
 *
 * <p>A table whose read is refused to the server's user ({@link #deny}: its {@code SELECT} revoked,
 * or the table created anew by a migration without the grant) failed every read of the tail the
 * same way, and stopped every table's changes: it is held alike, with a WARN naming the grant it
 * lacks, until the probe may read it.
 */
public final class TableLockWaits implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(TableLockWaits.class);

  /** The cause of the staleness of a held table, beside other causes of the same table. */
  public static final String CAUSE = "lock";

  /** The longest a read on the tail's thread waits for one table's lock. */
  public static final Duration WAIT = Duration.ofSeconds(1);

  /** How long a table is held before who waits for its lock, and who may hold it, is logged. */
  static final Duration FIRST_WAIT_LOG = Duration.ofSeconds(5);

  private static final long PROBE_MILLIS = 1_000;

  /** Asks for a table's lock, waiting at most {@link #WAIT}, and lets it go again. */
  @FunctionalInterface
  public interface Probe {
    /**
     * Throws the dialect's lock wait timeout ({@link DdlLocks#isLockWaitTimeout}) if not granted.
     */
    void take(Connection c, TableId table) throws SQLException;
  }

  private final DataSource pool;
  private final DdlLocks locks;
  private final Probe probe;

  /**
   * A probe on a connection gone silent is given up after this ({@link BoundedAnswers}): its lock
   * wait, then {@code answer_timeout}.
   */
  private final Duration answerWithin;

  /** Per held table: why its mirrors may differ meanwhile (null: they do not), and since when. */
  private final Map<TableId, Held> held = new LinkedHashMap<>();

  /** The held tables whose lock the probe was granted since: the next read tries them. */
  private final Set<TableId> free = new LinkedHashSet<>();

  /** Staleness transitions not yet handed to a batch. */
  private final List<CommittedBatch.Staleness> transitions = new ArrayList<>();

  private ScheduledExecutorService prober;

  private static final class Held {
    final long since = System.nanoTime();
    long nextWaitLog = since + FIRST_WAIT_LOG.toNanos();
    String reason;

    /** The database's words when the user was refused the read, else null (a lock waited for). */
    String deniedBy;

    boolean lockLogged;

    Held(String reason) {
      this.reason = reason;
    }
  }

  /**
   * @param locks the dialect's lock facts: its lock wait timeout, who may hold a table's lock and
   *     who waits for it
   * @param probe how the probe thread asks for a table's lock
   */
  public TableLockWaits(DataSource pool, DdlLocks locks, Probe probe, Duration answerTimeout) {
    this.pool = pool;
    this.locks = locks;
    this.probe = probe;
    this.answerWithin = WAIT.plus(answerTimeout);
  }

  /** True when {@code e} is a lock wait of a bounded read that ran out. */
  public boolean timedOut(SQLException e) {
    return locks.isLockWaitTimeout(e);
  }

  /** True when {@code e} refused the server's user the read of a table ({@link #deny}). */
  public boolean denied(SQLException e) {
    return locks.isReadDenied(e);
  }

  /** True while {@code table} is held and its lock was not seen free since: not to be read now. */
  public synchronized boolean waiting(TableId table) {
    return held.containsKey(table) && !free.contains(table);
  }

  /** True while any table is held. */
  public synchronized boolean anyHeld() {
    return !held.isEmpty();
  }

  /** True when a held table's lock was seen free: the next read should try it. */
  public synchronized boolean readDue() {
    return !free.isEmpty();
  }

  /** The held tables whose lock was seen free since. */
  public synchronized List<TableId> freeTables() {
    return new ArrayList<>(free);
  }

  /**
   * {@code table}'s lock was not granted within {@link #WAIT} (or it is still waited for): held,
   * with a WARN the first time saying what waits ({@code what}, e.g. "its changed rows are kept").
   * With a {@code reason}, its mirrors lack something meanwhile: the table is said stale.
   */
  public synchronized void hold(TableId table, String what, String reason) {
    hold(table, what, reason, null);
  }

  /**
   * The server's user was refused the read of {@code table} ({@code denied}, the database's words:
   * a privilege revoked, or the table created anew without the grant; null: as it was held): held
   * as {@link #hold} holds it, with a WARN saying so and the way out, until the probe may read it.
   */
  public synchronized void deny(TableId table, String what, String reason, SQLException denied) {
    Held h = held.get(table);
    String by =
        denied != null
            ? denied.getMessage()
            : h != null && h.deniedBy != null ? h.deniedBy : "its read denied";
    hold(table, what, reason, by);
  }

  /** True while {@code table} is held because the server's user may not read it ({@link #deny}). */
  public synchronized boolean isDenied(TableId table) {
    Held h = held.get(table);
    return h != null && h.deniedBy != null;
  }

  /**
   * Holds {@code table} when a whole read of it was refused ({@code cause}; null: as it was held,
   * when a re-read is asked for meanwhile): a re-read ({@code reRead}) waits and the table is
   * stale, its mirrors to be brought up to date; a reconciliation range waits and the table is not
   * stale, its mirrors lacking nothing.
   */
  public synchronized void holdWholeRead(TableId table, boolean reRead, SQLException cause) {
    String what = reRead ? "its re-read waits" : "its reconciliation waits";
    if (cause != null ? denied(cause) : isDenied(table)) {
      String reason =
          reRead
              ? deniedReason(
                  table,
                  "table " + table.qualified() + " is to be read again whole, and cannot be now")
              : null;
      deny(table, what, reason, cause);
    } else {
      hold(
          table,
          what,
          reRead
              ? "table "
                  + table.qualified()
                  + " is to be read again whole, and DDL waits for its lock: the mirror keeps its"
                  + " rows, and is brought up to date once the lock is granted"
              : null);
    }
  }

  /**
   * What the clients of a table whose read was {@link #deny denied} are told; {@code what} says
   * what cannot be done ("the changed rows of ... cannot be read now").
   */
  public static String deniedReason(TableId table, String what) {
    return what
        + ": the server's user may not read "
        + table.qualified()
        + " (a privilege revoked, or the table created anew without the grant); the mirror keeps"
        + " its rows, and is brought up to date once the user may read it again (grant it SELECT on"
        + " the table, as docs/SECURITY.md lists)";
  }

  private void hold(TableId table, String what, String reason, String deniedBy) {
    free.remove(table);
    Held h = held.get(table);
    if (h == null) {
      h = new Held(null);
      held.put(table, h);
      startProbe();
    }
    if (deniedBy != null && h.deniedBy == null) {
      h.deniedBy = deniedBy;
      LOG.warn(
          "{} cannot be read by the server's user ({}): {}. The server reads the other tables on,"
              + " and this one once the user may read it: grant it SELECT on the table (docs/SECURITY.md)",
          table.qualified(),
          deniedBy,
          what);
    } else if (deniedBy == null && !h.lockLogged) {
      h.lockLogged = true;
      LOG.warn(
          "{} was not granted its lock within {} ms (an ALTER TABLE or other DDL waits for an open"
              + " transaction that has read the table, or runs): {}. The server reads the other"
              + " tables on, and this one once the lock is granted",
          table.qualified(),
          WAIT.toMillis(),
          what);
    }
    if (reason != null && !reason.equals(h.reason)) {
      h.reason = reason;
      transitions.add(new CommittedBatch.Staleness(table.qualified(), CAUSE, reason));
    }
  }

  /** {@code table} was read (what waited is done): followed again. */
  public synchronized void released(TableId table) {
    free.remove(table);
    Held h = held.remove(table);
    if (h != null) {
      if (h.reason != null) {
        transitions.add(new CommittedBatch.Staleness(table.qualified(), CAUSE, null));
      }
      LOG.info(
          "{} {} after {} ms: what waited is read, and it is followed again",
          table.qualified(),
          h.deniedBy != null ? "may be read by the server's user again" : "was granted its lock",
          (System.nanoTime() - h.since) / 1_000_000);
    }
  }

  /** Every table was read again whole (a snapshot): none is held any more. */
  public synchronized void allReleased() {
    allReleasedBut(Set.of());
  }

  /**
   * Every table but {@code leftOut} was read again whole (a snapshot while serving, which left
   * those out): none of the others is held any more.
   */
  public synchronized void allReleasedBut(Set<TableId> leftOut) {
    for (TableId t : new ArrayList<>(held.keySet())) {
      if (!leftOut.contains(t)) {
        released(t);
      }
    }
  }

  /** The staleness transitions since the last call, for the next batch. */
  public synchronized List<CommittedBatch.Staleness> takeTransitions() {
    if (transitions.isEmpty()) {
      return List.of();
    }
    List<CommittedBatch.Staleness> out = new ArrayList<>(transitions);
    transitions.clear();
    return out;
  }

  /**
   * Who waits for a lock on any of {@code tables} (the DDL, and reads queued behind it) and who may
   * hold it, longest open first; null when nobody waits or it cannot be read.
   */
  public String describe(List<TableId> tables) {
    try (Connection c = BoundedAnswers.borrow(pool, answerWithin)) {
      Map<String, String> waiting = new LinkedHashMap<>(); // by session: a list may be global
      for (TableId t : tables) {
        for (String w : locks.waiters(c, t)) {
          waiting.putIfAbsent(w.substring(0, Math.max(0, w.indexOf(" ("))), w);
        }
      }
      if (waiting.isEmpty()) {
        return null;
      }
      List<String> open = locks.holders(c, tables);
      return "waiting for a lock: "
          + waiting.values()
          + "; who may hold it, longest open first: "
          + (open.isEmpty() ? "none visible" : open);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Who waits for a lock could not be read: {}", e.toString());
      return null;
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // runs until closed; a probe's failure is logged
  private void startProbe() {
    if (prober == null) {
      prober =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "tablecast-lock-probe");
                t.setDaemon(true);
                return t;
              });
      prober.scheduleWithFixedDelay(
          this::probeAll, PROBE_MILLIS, PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Asks for the lock of each held table not seen free, and says who waits. */
  private void probeAll() {
    List<TableId> tables;
    synchronized (this) {
      tables = new ArrayList<>(held.keySet());
      tables.removeAll(free);
    }
    for (TableId t : tables) {
      try (Connection c = BoundedAnswers.borrow(pool, answerWithin)) {
        try {
          probe.take(c, t);
        } catch (SQLException e) {
          if (timedOut(e)) {
            logWaiting(t, c);
            continue;
          }
          if (locks.isReadDenied(e)) {
            logDenied(t, e);
            continue;
          }
          // anything else (the table gone): the tail's read finds it and says what it is
        }
        synchronized (this) {
          if (held.containsKey(t)) {
            free.add(t);
          }
        }
      } catch (SQLException | RuntimeException e) {
        LOG.debug("Asking for the lock of {} failed: {}", t.qualified(), e.toString());
      }
    }
  }

  /**
   * After {@link #FIRST_WAIT_LOG} held, then every minute: who waits for the table's lock (the DDL
   * among them) and who may hold it.
   */
  private void logWaiting(TableId table, Connection c) throws SQLException {
    long heldSeconds;
    synchronized (this) {
      Held h = held.get(table);
      long now = System.nanoTime();
      if (h == null || now < h.nextWaitLog) {
        return;
      }
      h.nextWaitLog = now + TimeUnit.MINUTES.toNanos(1);
      heldSeconds = (now - h.since) / 1_000_000_000;
    }
    List<String> waiting = locks.waiters(c, table);
    List<String> open = locks.holders(c, List.of(table));
    LOG.warn(
        "{} has waited {} s for its lock. Waiting for it: {}. Who may hold it, longest open first:"
            + " {}. The DDL waits for an open transaction that has read the table; ending that"
            + " transaction (or the DDL) lets the server follow the table again",
        table.qualified(),
        heldSeconds,
        waiting.isEmpty() ? "none visible" : waiting,
        open.isEmpty() ? "none visible" : open);
  }

  /** Every minute while the server's user may still not read {@code table}: says so again. */
  private synchronized void logDenied(TableId table, SQLException e) {
    Held h = held.get(table);
    long now = System.nanoTime();
    if (h == null || now < h.nextWaitLog) {
      return;
    }
    h.nextWaitLog = now + TimeUnit.MINUTES.toNanos(1);
    LOG.warn(
        "{} still cannot be read by the server's user after {} s ({}): grant it SELECT on the"
            + " table (docs/SECURITY.md); the server follows the table again once it may",
        table.qualified(),
        (now - h.since) / 1_000_000_000,
        e.getMessage());
  }

  @Override
  public synchronized void close() {
    if (prober != null) {
      prober.shutdownNow();
    }
  }
}
