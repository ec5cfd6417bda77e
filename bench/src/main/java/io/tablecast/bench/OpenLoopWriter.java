package io.tablecast.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes on an open-loop schedule: operation {@code i} is due at {@code t0 + i / rate}, whatever
 * happened to earlier ones, and its due time ("intended start") is recorded, so a stall delays the
 * measured latency of every operation scheduled during it (no coordinated omission). Worker threads
 * take the next operation, wait for its due time, run it and record the commit-return time.
 *
 * <p>Operation {@code i} sets {@code version = i + 1} on {@code rowsPerOp} rows of {@code
 * bench_rows} in one transaction (autocommit when 1), so a mirror listener can tell which operation
 * it sees.
 */
final class OpenLoopWriter {
  final long totalOps;
  final long[] intended;
  final long[] committed;
  private final Db.Schema schema;
  private final int threads;
  private final double periodNanos;
  private final int rowsPerOp;
  private final int keys;

  /**
   * Each operation's first key is {@code i * rowsPerOp * keyStride}, modulo {@link #keys}: 1 walks
   * the table from its first row; a large prime spreads a run's changes over the whole table.
   */
  private long keyStride = 1;

  private final AtomicLong next = new AtomicLong();
  final AtomicLong done = new AtomicLong();
  final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> workers = new ArrayList<>();
  private static final AtomicInteger IDS = new AtomicInteger();
  long t0;

  OpenLoopWriter(
      Db.Schema schema, int threads, double opsPerSecond, long totalOps, int rowsPerOp, int keys) {
    this.schema = schema;
    this.threads = threads;
    this.periodNanos = 1e9 / opsPerSecond;
    this.totalOps = totalOps;
    this.rowsPerOp = rowsPerOp;
    this.keys = keys;
    this.intended = new long[(int) totalOps];
    this.committed = new long[(int) totalOps];
  }

  /** Spreads the keys written by {@code stride} (see {@link #keyStride}); before {@link #start}. */
  OpenLoopWriter keyStride(long stride) {
    this.keyStride = stride;
    return this;
  }

  void start() throws SQLException {
    List<Connection> conns = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      conns.add(schema.connect());
    }
    t0 = System.nanoTime() + 20_000_000L;
    for (Connection c : conns) {
      Thread th = new Thread(() -> work(c), "bench-writer-" + IDS.incrementAndGet());
      th.setDaemon(true);
      workers.add(th);
      th.start();
    }
  }

  private void work(Connection c) {
    try (c;
        PreparedStatement ps =
            c.prepareStatement("UPDATE bench_rows SET version = ?, qty = qty + 1 WHERE id = ?")) {
      c.setAutoCommit(rowsPerOp == 1);
      long i;
      while ((i = next.getAndIncrement()) < totalOps && failure.get() == null) {
        long due = t0 + (long) (i * periodNanos);
        long now;
        while ((now = System.nanoTime()) < due) {
          LockSupport.parkNanos(Math.min(due - now, 200_000));
        }
        intended[(int) i] = due;
        for (int j = 0; j < rowsPerOp; j++) {
          ps.setLong(1, i + 1);
          ps.setLong(2, (i * rowsPerOp + j) * keyStride % keys + 1);
          if (rowsPerOp == 1) {
            ps.executeUpdate();
          } else {
            ps.addBatch();
          }
        }
        if (rowsPerOp > 1) {
          ps.executeBatch();
          c.commit();
        }
        committed[(int) i] = System.nanoTime();
        done.incrementAndGet();
      }
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
    }
  }

  /** Operations whose due time has passed. */
  long due() {
    return Math.min(totalOps, Math.max(0, (long) ((System.nanoTime() - t0) / periodNanos)));
  }

  void stop() {
    next.set(Long.MAX_VALUE / 2);
  }

  void join(long millis) throws InterruptedException {
    long end = System.currentTimeMillis() + millis;
    for (Thread t : workers) {
      t.join(Math.max(1, end - System.currentTimeMillis()));
    }
  }

  void check() {
    Throwable f = failure.get();
    if (f != null) {
      throw new IllegalStateException("writer failed: " + f, f);
    }
  }
}
