package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.CommittedBatch;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
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
 * MySQL/MariaDB: the cached tables whose changed rows the tail could not read because their
 * metadata lock was not granted within {@link #WAIT_SECONDS} s, and the keys of those rows.
 *
 * <p>An {@code ALTER TABLE} (or other DDL) waits for every open transaction that has read the
 * table, and every later statement on the table, a plain {@code SELECT} too, queues behind it: an
 * application's transaction left open for an hour held the tail's read of the changed rows for an
 * hour, and with it the changes of every other table. The tail's reads of changed rows therefore
 * wait at most {@link #WAIT_SECONDS} s for a table's metadata lock ({@link
 * MysqlFlavor#boundedLockWait}); a table whose lock was not granted is held here: its changed keys
 * are kept, the table is stale for its clients (cause {@value #CAUSE}), and the tail reads the
 * others on without trying it again. A thread of its own asks for the lock every second; once it is
 * granted, the next read reads the kept keys with the new ones, in its snapshot (a key's row as it
 * is then, as for any changed key), and the table is followed again. Its reconciliation and
 * re-reads wait meanwhile. The tail thread holds and releases; the probe thread only marks tables
 * free.
 */
final class LockedTables implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(LockedTables.class);

  /** The cause of the staleness of a held table, beside other causes of the same table. */
  static final String CAUSE = "lock";

  /** The longest the tail's read of one table's changed rows waits for its metadata lock. */
  static final int WAIT_SECONDS = 1;

  /** How often the probe thread asks for the metadata lock of each held table. */
  static final long PROBE_MILLIS = 1_000;

  /** How long a table is held before the sessions waiting for a metadata lock are named. */
  static final long FIRST_WAIT_LOG_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** The sessions waiting longest for a metadata lock, named in the WARN of a held table. */
  private static final String WAITING =
      "SELECT ID, TIME, LEFT(INFO, 120) FROM information_schema.PROCESSLIST"
          + " WHERE STATE = 'Waiting for table metadata lock' AND ID <> CONNECTION_ID()"
          + " AND INFO IS NOT NULL ORDER BY TIME DESC LIMIT 3";

  private final MysqlFlavor flavor;
  private final DataSource pool;

  /** Per held table, the key images of its changes not read yet, in the order first seen. */
  private final Map<TableId, Set<String>> held = new LinkedHashMap<>();

  /** When each held table was first held ({@link System#nanoTime()}). */
  private final Map<TableId, Long> since = new LinkedHashMap<>();

  /** Per held table, when the probe next names who waits for a metadata lock ({@code nanoTime}). */
  private final Map<TableId, Long> nextWaitLog = new LinkedHashMap<>();

  /** The held tables whose lock the probe was granted since: the next read tries them. */
  private final Set<TableId> free = new LinkedHashSet<>();

  /** Staleness transitions not yet handed to a batch. */
  private final List<CommittedBatch.Staleness> transitions = new ArrayList<>();

  private ScheduledExecutorService probe;

  LockedTables(MysqlFlavor flavor, DataSource pool) {
    this.flavor = flavor;
    this.pool = pool;
  }

  /** True when a metadata lock wait of a bounded read ran out ({@code ER_LOCK_WAIT_TIMEOUT}). */
  static boolean timedOut(SQLException e) {
    return new MysqlDdlLocks().isLockWaitTimeout(e);
  }

  /** True while {@code table} is held and its lock was not seen free since: not to be read now. */
  synchronized boolean waiting(TableId table) {
    return held.containsKey(table) && !free.contains(table);
  }

  /** True while any table is held (reconciliation ranges wait). */
  synchronized boolean anyHeld() {
    return !held.isEmpty();
  }

  /** True when a held table's lock was seen free: the next read should read its kept keys. */
  synchronized boolean readDue() {
    return !free.isEmpty();
  }

  /** Per held table that is free now, its kept key images (copies: kept until {@link #read}). */
  synchronized Map<TableId, List<String>> freeKeys() {
    Map<TableId, List<String>> out = new LinkedHashMap<>();
    for (TableId t : free) {
      out.put(t, new ArrayList<>(held.getOrDefault(t, Set.of())));
    }
    return out;
  }

  /**
   * The read's wait for {@code table}'s metadata lock ran out (or the table is still waited for):
   * keeps {@code images}, says the table stale the first time and starts the probe.
   */
  synchronized void hold(TableId table, List<String> images) {
    free.remove(table);
    Set<String> keys = held.get(table);
    if (keys == null) {
      keys = new LinkedHashSet<>();
      held.put(table, keys);
      since.put(table, System.nanoTime());
      nextWaitLog.put(table, System.nanoTime() + FIRST_WAIT_LOG_NANOS);
      transitions.add(new CommittedBatch.Staleness(table.qualified(), CAUSE, reason(table)));
      LOG.warn(
          "The changed rows of {} could not be read: its metadata lock was not granted within {} s"
              + " (an ALTER TABLE or other DDL waits for an open transaction that has read the"
              + " table, or runs). Its clients are told it is stale; the server reads the other"
              + " tables on, and this one's changes once the lock is granted",
          table.qualified(),
          WAIT_SECONDS);
      startProbe();
    }
    keys.addAll(images);
  }

  /** {@code table}'s changed rows were read (or the table re-read whole): followed again. */
  synchronized void read(TableId table) {
    free.remove(table);
    if (held.remove(table) != null) {
      nextWaitLog.remove(table);
      long millis = (System.nanoTime() - since.remove(table)) / 1_000_000;
      transitions.add(new CommittedBatch.Staleness(table.qualified(), CAUSE, null));
      LOG.info(
          "The metadata lock of {} was granted after {} ms: its changes held meanwhile are read,"
              + " and it is followed again",
          table.qualified(),
          millis);
    }
  }

  /**
   * A read succeeded: it read the changed rows of {@code changed}'s tables, kept ones included, and
   * the tables {@code resyncs} whole, but for {@code failed}. Those are followed again.
   */
  void after(ChangedRows changed, Collection<TableSchema> resyncs, Collection<TableId> failed) {
    for (TableId t : changed.readTables()) {
      read(t);
    }
    for (TableSchema t : resyncs) {
      if (!failed.contains(t.id())) {
        read(t.id()); // read whole: what was kept is in it
      }
    }
  }

  /**
   * Takes {@code table}'s metadata lock in {@code c}'s transaction, waiting at most {@link
   * #WAIT_SECONDS}, so that a whole read of it that follows cannot wait for DDL; when not granted,
   * holds the table (its re-read waits) and returns false. Any other failure is the read's to meet.
   */
  boolean lockFor(Connection c, TableId table) {
    try (Statement s = c.createStatement()) {
      s.executeQuery(probe(table)).close();
      return true;
    } catch (SQLException e) {
      if (timedOut(e)) {
        hold(table, List.of());
        return false;
      }
      return true;
    }
  }

  private String probe(TableId table) {
    return flavor.boundedLockWait(
        "SELECT 1 FROM " + MysqlIdentifiers.quote(table) + " LIMIT 0", WAIT_SECONDS);
  }

  /** Every table was read again whole (a snapshot): nothing is held any more. */
  synchronized void allRead() {
    for (TableId t : new ArrayList<>(held.keySet())) {
      read(t);
    }
  }

  /** The staleness transitions since the last call, for the next batch. */
  synchronized List<CommittedBatch.Staleness> takeTransitions() {
    if (transitions.isEmpty()) {
      return List.of();
    }
    List<CommittedBatch.Staleness> out = new ArrayList<>(transitions);
    transitions.clear();
    return out;
  }

  /** What the clients of a held table are told. */
  static String reason(TableId table) {
    return "the changed rows of "
        + table.qualified()
        + " cannot be read now: its metadata lock is taken or waited for by DDL (an ALTER TABLE"
        + " waiting for an open transaction); the mirror keeps its rows, and follows it again once"
        + " the lock is granted";
  }

  @SuppressWarnings("FutureReturnValueIgnored") // runs until closed; a probe's failure is logged
  private void startProbe() {
    if (probe == null) {
      probe =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "tablecast-lock-probe");
                t.setDaemon(true);
                return t;
              });
      probe.scheduleWithFixedDelay(
          this::probeAll, PROBE_MILLIS, PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Asks for the metadata lock of each held table not seen free, and names who waits. */
  private void probeAll() {
    List<TableId> tables;
    synchronized (this) {
      tables = new ArrayList<>(held.keySet());
      tables.removeAll(free);
    }
    for (TableId t : tables) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        try {
          s.executeQuery(probe(t)).close();
        } catch (SQLException e) {
          if (timedOut(e)) {
            logWaiting(t, s);
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
        LOG.debug("Asking for the metadata lock of {} failed: {}", t.qualified(), e.toString());
      }
    }
  }

  /**
   * Once a table has been held {@link #FIRST_WAIT_LOG_NANOS}, then every minute: which sessions
   * wait for a metadata lock (the DDL among them).
   */
  private void logWaiting(TableId table, Statement s) throws SQLException {
    long heldSeconds;
    synchronized (this) {
      Long first = since.get(table);
      Long next = nextWaitLog.get(table);
      long now = System.nanoTime();
      if (first == null || next == null || now < next) {
        return;
      }
      nextWaitLog.put(table, now + TimeUnit.MINUTES.toNanos(1));
      heldSeconds = (now - first) / 1_000_000_000;
    }
    List<String> waiting = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(WAITING)) {
      while (rs.next()) {
        waiting.add("thread " + rs.getLong(1) + " (" + rs.getLong(2) + " s): " + rs.getString(3));
      }
    }
    List<String> open = new MysqlDdlLocks().holders(s.getConnection(), List.of(table));
    LOG.warn(
        "{} has been stale for {} s: its metadata lock is still not granted. Waiting for a"
            + " metadata lock: {}. The DDL waits for an open transaction that has read the table,"
            + " one of the longest open: {}; ending that transaction (or the DDL) lets the server"
            + " follow the table again",
        table.qualified(),
        heldSeconds,
        waiting.isEmpty() ? "none visible (without the PROCESS privilege)" : waiting,
        open.isEmpty() ? "none visible" : open);
  }

  @Override
  public synchronized void close() {
    if (probe != null) {
      probe.shutdownNow();
    }
  }
}
