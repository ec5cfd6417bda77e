package io.tablecast.server.tail;

import java.time.Duration;

/**
 * How long the tail pauses between reads of the outbox, adapted to the rate at which changes
 * arrive. While changes keep coming (the last read that found rows is less than {@code idleAfter}
 * ago) the pause is a tenth ({@link #READS_PER_GAP}) of the average gap between reads that found
 * rows, within {@code min} and {@code max}: at 100 transactions/s it is 1 ms, at 10/s or fewer
 * {@code max}, so the database answers at most about ten empty reads per change; once no change
 * came for {@code idleAfter}, pauses double from there up to {@code max}. A read that finds rows is
 * followed by the same pause as an empty one while changes arrive, so a busy tail reads at most
 * once per {@code min} and each read takes what gathered meanwhile. With {@code idleAfter} zero it
 * is the schedule of before: from {@code min}, doubling after every empty read. The times are the
 * caller's {@link System#nanoTime()} readings, so the schedule can be driven without a clock.
 *
 * <p>Not thread-safe: the tail's thread alone uses it.
 */
final class PollSchedule {
  /** While changes arrive, empty reads per average gap between changes (at most). */
  static final int READS_PER_GAP = 10;

  /** Weight of the newest gap in the average, 1/8 (an exponentially weighted mean). */
  private static final int AVERAGE_SHIFT = 3;

  private final long minNanos;
  private final long maxNanos;
  private final long idleAfterNanos;
  private long nextPauseNanos;
  private boolean changed;
  private long lastChangeNanos;
  private long averageGapNanos;

  /**
   * @param min the pause while changes arrive, and the first of a back-off
   * @param max the longest pause, reached while idle
   * @param idleAfter how long after the last change the pauses start to grow; zero: at once
   */
  PollSchedule(Duration min, Duration max, Duration idleAfter) {
    if (min.isNegative() || min.isZero() || max.compareTo(min) < 0 || idleAfter.isNegative()) {
      throw new IllegalArgumentException(
          "poll schedule needs 0 < min <= max and idleAfter >= 0, was min "
              + min
              + ", max "
              + max
              + ", idleAfter "
              + idleAfter);
    }
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.idleAfterNanos = idleAfter.toNanos();
    this.nextPauseNanos = minNanos;
  }

  /** A read at {@code now} found rows: the pauses that follow are short. */
  void foundRows(long now) {
    if (changed) {
      long gap = Math.max(0, now - lastChangeNanos);
      averageGapNanos =
          averageGapNanos == 0 ? gap : averageGapNanos + ((gap - averageGapNanos) >> AVERAGE_SHIFT);
    }
    changed = true;
    lastChangeNanos = now;
    nextPauseNanos = idleAfterNanos == 0 ? minNanos : busyPause();
  }

  /**
   * How long to pause after a read that found rows, in nanos: the pause while changes arrive, so
   * that a busy tail reads at most once per {@code min} however fast changes come, each read taking
   * what gathered meanwhile (docs/BENCHMARKS.md, figure 6 served: reading again at once cost the
   * database and the server CPU per change). Zero with {@code idleAfter} zero, the schedule of
   * before.
   */
  long pauseAfterRows() {
    return idleAfterNanos == 0 ? 0 : busyPause();
  }

  /** The pause while changes arrive: a tenth of the average gap, within min and max. */
  private long busyPause() {
    if (averageGapNanos == 0) {
      return minNanos; // one change seen so far: stay close behind until a gap is known
    }
    return Math.max(minNanos, Math.min(maxNanos, averageGapNanos / READS_PER_GAP));
  }

  /** A read at {@code now} found nothing: how long to pause before the next read, in nanos. */
  long pauseAfterEmptyRead(long now) {
    if (changed && now - lastChangeNanos < idleAfterNanos) {
      return busyPause(); // changes are arriving: stay close behind them
    }
    long pause = nextPauseNanos;
    nextPauseNanos = Math.min(maxNanos, pause * 2);
    return pause;
  }
}
