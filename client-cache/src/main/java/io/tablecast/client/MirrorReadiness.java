package io.tablecast.client;

import java.time.Duration;

/**
 * Whether a mirror holds its table yet, and what kept it from it: ready after its first snapshot
 * (or a sibling's rows), failed when the server refused it, closed with its client. Threads wait in
 * {@link #await}.
 */
final class MirrorReadiness {
  private final String table;
  private final Object monitor = new Object();
  private volatile boolean ready;
  private volatile TablecastException failure;
  private volatile boolean closed;

  MirrorReadiness(String table) {
    this.table = table;
  }

  /** Waits until ready; false on timeout; throws the failure, or when closed. */
  boolean await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (monitor) {
      while (true) {
        if (closed) {
          throw new TablecastException(
              null, "client is closed; mirror of " + table + " is not ready");
        }
        TablecastException f = failure;
        if (f != null && !ready) {
          throw new TablecastException(f.code(), f.getMessage());
        }
        if (ready) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        monitor.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Ready and not closed. */
  boolean isReady() {
    return ready && !closed;
  }

  /** Ready, even if closed since (a re-snapshot diffs against the rows held). */
  boolean wasReady() {
    return ready;
  }

  void markReady() {
    synchronized (monitor) {
      ready = true;
      failure = null;
      monitor.notifyAll();
    }
  }

  /** Records a failure that {@link #await} reports while the mirror is not ready. */
  void fail(TablecastException e) {
    synchronized (monitor) {
      failure = e;
      monitor.notifyAll();
    }
  }

  void close() {
    synchronized (monitor) {
      closed = true;
      ready = false;
      monitor.notifyAll();
    }
  }
}
