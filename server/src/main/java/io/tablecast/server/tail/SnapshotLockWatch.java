package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * While a snapshot reads the cached tables whole, says when it has read no row for {@link #EVERY}
 * because a lock it needs is waited for. A whole read of a table needs its lock (MySQL/MariaDB: the
 * metadata lock; PostgreSQL: ACCESS SHARE), and DDL queued on the table behind an open transaction
 * holds it up for as long as that transaction stays open: a server started then showed only
 * "snapshot: 0 rows, 0 rows/s" every 10 s, for as long as it took. Now a WARN names who waits (the
 * DDL, the snapshot's own read) and who may hold the lock, and again every minute while it lasts;
 * the snapshot itself waits as before (it must read every table).
 */
final class SnapshotLockWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(SnapshotLockWatch.class);

  /** How long without a row before the watch asks who waits for a lock. */
  static final Duration EVERY = Duration.ofSeconds(5);

  private final ChangeSource source;
  private final LongSupplier rows;
  private final long start = System.nanoTime();
  private final ScheduledExecutorService thread;
  private volatile TableSchema reading;
  private long rowsSeen = -1;
  private long nextWarnNanos;

  private SnapshotLockWatch(ChangeSource source, LongSupplier rows) {
    this.source = source;
    this.rows = rows;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-snapshot-watch");
              t.setDaemon(true);
              return t;
            });
  }

  /** Watches a snapshot of {@code source} whose rows read so far {@code rows} counts. */
  @SuppressWarnings("FutureReturnValueIgnored") // runs until closed; a failed look is logged
  static SnapshotLockWatch start(ChangeSource source, LongSupplier rows) {
    SnapshotLockWatch w = new SnapshotLockWatch(source, rows);
    long every = EVERY.toMillis();
    w.thread.scheduleWithFixedDelay(w::look, every, every, TimeUnit.MILLISECONDS);
    return w;
  }

  /** The snapshot is about to read {@code table}. */
  void reading(TableSchema table) {
    this.reading = table;
  }

  private void look() {
    long now = rows.getAsLong();
    boolean stalled = now == rowsSeen;
    rowsSeen = now;
    if (!stalled || System.nanoTime() < nextWarnNanos) {
      return;
    }
    TableSchema table = reading;
    // before its first table the snapshot may wait for any (PostgreSQL locks them all first)
    List<TableSchema> tables = table != null ? List.of(table) : source.tables();
    String waits = source.lockWaits(tables);
    if (waits == null) {
      return;
    }
    nextWarnNanos = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    LOG.warn(
        "The snapshot (begun {} s ago{}) has read no row for {} s or more; {}. DDL waiting for"
            + " an open transaction holds up every read of its table, this snapshot's too: ending"
            + " that transaction (or the DDL) lets it go on",
        (System.nanoTime() - start) / 1_000_000_000,
        table == null ? "" : ", reading " + table.id().qualified(),
        EVERY.toSeconds(),
        waits);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
