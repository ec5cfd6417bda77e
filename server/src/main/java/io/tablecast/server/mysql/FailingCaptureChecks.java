package io.tablecast.server.mysql;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.CommittedBatch;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: the capture check's two schedules ({@link MysqlCaptureWatch}: the triggers, and
 * the looks for what fires no trigger) failing round after round while the tail reads on, each
 * failure a WARN in the log. Meanwhile a {@code TRUNCATE}, an {@code ALTER TABLE} or a capture
 * trigger dropped goes unnoticed and the mirrors would be wrong without a word: after {@value
 * #FAILURES_BEFORE_STALE} failures in a row of either schedule, every cached table is said stale
 * (cause {@value #CAUSE}) with the last error, until each schedule has succeeded once since. What
 * happened meanwhile is found then: the first look compares the tables' InnoDB ids and catalog with
 * those it remembered, the first check finds the triggers missing.
 *
 * <p>Failures while the tail's own reads fail are not counted: every table is said stale for those
 * already (cause {@code database}), and the first checks after the database is back are as late as
 * any check (within {@code capture_check_interval}), not a sign that the checks cannot work.
 * Before, the checks could fail for as long as the server ran (a connection limit reached by the
 * checks' connections alone, a catalog query the database refused) with only the WARNs to show.
 * Thread-safe: the watch's two threads report, the tail's takes the transitions.
 */
final class FailingCaptureChecks {
  /** Logs under {@link MysqlCaptureWatch}, whose rounds these are. */
  private static final Logger LOG = RecentEvents.logger(MysqlCaptureWatch.class);

  /** The cause of this staleness, beside other causes of the same table. */
  static final String CAUSE = "capture_check";

  /** Failures in a row of one schedule that make every table stale: one may be a blip. */
  static final int FAILURES_BEFORE_STALE = 2;

  /** The capture check's two schedules. */
  enum Schedule {
    CHECK("checking the capture triggers", "Capture check failed"),
    LOOK(
        "looking for changes no trigger records (TRUNCATE, ALTER TABLE)",
        "Looking for changes no trigger records failed");

    private final String what;
    private final String failedLog;

    Schedule(String what, String failedLog) {
      this.what = what;
      this.failedLog = failedLog;
    }
  }

  /** One round of a schedule. */
  @FunctionalInterface
  interface Round {
    void run() throws SQLException;
  }

  private final Supplier<List<String>> tables;
  private final Duration interval;

  /** Per schedule, its failures in a row (since its last success or the tail's last failure). */
  private final Map<Schedule, Integer> failures = new EnumMap<>(Schedule.class);

  /** The schedules whose last round succeeded. */
  private final Set<Schedule> working = EnumSet.noneOf(Schedule.class);

  /** The tables said stale, with the reason; empty while nothing is said. */
  private List<String> said = List.of();

  /** Transitions not yet handed to the tail, in the order they happened. */
  private final List<CommittedBatch.Staleness> pending = new ArrayList<>();

  /** How many transitions were ever queued: {@link #mark}. */
  private long queued;

  /** How many of them were handed over. */
  private long taken;

  /**
   * @param tables the cached tables' qualified names
   * @param interval {@code capture_check_interval}, as the reason says it
   */
  FailingCaptureChecks(Supplier<List<String>> tables, Duration interval) {
    this.tables = tables;
    this.interval = interval;
  }

  /** Runs one round of {@code schedule}: a failure is logged (WARN) and counted, never thrown. */
  void run(Schedule schedule, Round round) {
    try {
      round.run();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("{}, retrying in {}: {}", schedule.failedLog, interval, e.toString());
      failed(schedule, e);
      return;
    }
    succeeded(schedule);
  }

  /** {@code schedule} failed on {@code error}. */
  synchronized void failed(Schedule schedule, Throwable error) {
    int inARow = failures.merge(schedule, 1, Integer::sum);
    working.remove(schedule);
    if (inARow >= FAILURES_BEFORE_STALE && said.isEmpty()) {
      String reason = reason(schedule, inARow, error);
      said = List.copyOf(tables.get());
      said.forEach(t -> queue(new CommittedBatch.Staleness(t, CAUSE, reason)));
    }
  }

  /** {@code schedule} succeeded: every table followed again once the other's last round did too. */
  synchronized void succeeded(Schedule schedule) {
    failures.remove(schedule);
    working.add(schedule);
    if (!said.isEmpty() && working.containsAll(EnumSet.allOf(Schedule.class))) {
      said.forEach(t -> queue(new CommittedBatch.Staleness(t, CAUSE, null)));
      said = List.of();
    }
  }

  /**
   * The tail's read failed: the failures so far are not counted (every table is stale for the
   * tail's own failures); what was said stays said until the schedules succeed.
   */
  synchronized void tailFailed() {
    failures.clear();
  }

  /**
   * Where the transitions queued so far end: a read of the outbox marks before it takes the
   * re-reads queued, and takes the transitions up to its mark ({@link #take(long)}), so that the
   * tables are followed again with, or after, the batch that re-reads what a look found once it
   * worked again (a look queues its re-reads before it counts as a success).
   */
  synchronized long mark() {
    return queued;
  }

  /** The transitions queued before {@code mark} not handed over yet (and forgets them). */
  synchronized List<CommittedBatch.Staleness> take(long mark) {
    int n = (int) (Math.min(mark, queued) - taken);
    if (n <= 0) {
      return List.of();
    }
    List<CommittedBatch.Staleness> first = pending.subList(0, n);
    List<CommittedBatch.Staleness> out = List.copyOf(first);
    first.clear();
    taken += n;
    return out;
  }

  /** Every transition not handed over yet (and forgets them). */
  synchronized List<CommittedBatch.Staleness> take() {
    return take(Long.MAX_VALUE);
  }

  private void queue(CommittedBatch.Staleness s) {
    pending.add(s);
    queued++;
  }

  private String reason(Schedule schedule, int inARow, Throwable error) {
    String message = error instanceof SQLException ? error.getMessage() : error.toString();
    return "the server's capture check ("
        + schedule.what
        + ") failed "
        + inARow
        + " times in a row, last with: "
        + message
        + ". Until it succeeds a TRUNCATE, an ALTER TABLE or a capture trigger dropped is not"
        + " noticed; it is tried again every "
        + (interval.toMillis() % 1000 == 0
            ? interval.toSeconds() + " s"
            : interval.toMillis() + " ms")
        + " (the server's log has each error)";
  }
}
