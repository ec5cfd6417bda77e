package io.tablecast.server.tail;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Notices when the tail's reads of the outbox stay slow for what they return. A read finds the rows
 * committed since the last one through the outbox's index: a millisecond or two for a few rows, a
 * few more for a thousand. When the median of {@link #WINDOW} reads in a row takes {@link
 * #SLOW_MILLIS} plus {@link #SLOW_MICROS_PER_ROW} per change of their median or more, every change
 * waits that long, and nothing else says why: the database is short of CPU or I/O, or its plan for
 * the read went wrong (PostgreSQL JIT-compiled every read once the outbox held a million rows,
 * 15-20 ms each, BENCHMARKS.md, 2026-12-03). Said once per {@link #REPEAT_MINUTES} while it lasts.
 * Reads that also read tables (a resync, a range of reconciliation) take as long as the tables are
 * large and are not counted. Not thread-safe: the tail's thread alone reports its reads.
 */
final class SlowReads {
  static final int WINDOW = 128;
  static final long SLOW_MILLIS = 10;
  static final long SLOW_MICROS_PER_ROW = 20;
  static final long REPEAT_MINUTES = 10;

  private final long[] nanos = new long[WINDOW];
  private final int[] rows = new int[WINDOW];
  private int count;
  private long lastSaidNanos;
  private boolean said;

  /**
   * A read took {@code tookNanos} and returned {@code rowCount} changes, ending at {@code
   * nowNanos}; returns what to tell when it completes a window of slow reads and nothing was said
   * for {@link #REPEAT_MINUTES}, else null.
   */
  String read(long tookNanos, int rowCount, long nowNanos) {
    nanos[count] = tookNanos;
    rows[count] = rowCount;
    if (++count < WINDOW) {
      return null;
    }
    count = 0;
    long medianNanos = median(nanos);
    long medianRows = median(rows);
    long slowNanos =
        TimeUnit.MILLISECONDS.toNanos(SLOW_MILLIS)
            + TimeUnit.MICROSECONDS.toNanos(SLOW_MICROS_PER_ROW * medianRows);
    if (medianNanos < slowNanos) {
      return null;
    }
    if (said && nowNanos - lastSaidNanos < TimeUnit.MINUTES.toNanos(REPEAT_MINUTES)) {
      return null;
    }
    said = true;
    lastSaidNanos = nowNanos;
    return "Reads of the outbox are slow: the last "
        + WINDOW
        + " took "
        + TimeUnit.NANOSECONDS.toMillis(medianNanos)
        + " ms each (median) and returned "
        + medianRows
        + " changes each, which the outbox's index finds in a few ms; every change waits that long."
        + " The database is short of CPU or I/O, or its plan for the read went wrong"
        + " (tablecast_tail_read_time_seconds has every read's time; said again in "
        + REPEAT_MINUTES
        + " minutes while it lasts)";
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static long median(int[] values) {
    int[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
