package io.tablecast.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writers that produce row changes as fast as the database allows: each commits transactions of one
 * range {@code UPDATE} of {@code rowsPerTx} consecutive rows (the trigger fires once per row) in a
 * slice of the key space of its own, so writers never wait on each other's row locks.
 */
final class RangeWriters {
  final AtomicLong written = new AtomicLong();
  final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  RangeWriters(Db.Schema schema, int writers, int keys, int rowsPerTx) throws SQLException {
    int slice = keys / writers;
    if (slice < rowsPerTx) {
      throw new IllegalArgumentException(
          keys + " keys cannot give " + writers + " writers " + rowsPerTx + " rows each");
    }
    for (int w = 0; w < writers; w++) {
      long first = (long) w * slice + 1;
      Connection c = schema.connect();
      Thread t = new Thread(() -> write(c, first, slice, rowsPerTx), "bench-writer-tp-" + w);
      t.setDaemon(true);
      threads.add(t);
    }
  }

  private void write(Connection c, long first, int slice, int rowsPerTx) {
    try (c;
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE bench_rows SET version = version + 1, qty = qty + 1 WHERE id BETWEEN ? AND ?")) {
      c.setAutoCommit(false);
      long offset = 0;
      while (!stop.get()) {
        long from = first + offset;
        ps.setLong(1, from);
        ps.setLong(2, from + rowsPerTx - 1);
        int n = ps.executeUpdate();
        c.commit();
        written.addAndGet(n);
        offset = (offset + rowsPerTx) % (slice - rowsPerTx + 1);
      }
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
    }
  }

  void start() {
    threads.forEach(Thread::start);
  }

  void stop() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(10_000);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("writer failed: " + failure.get(), failure.get());
    }
  }
}
