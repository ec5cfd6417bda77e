package io.tablecast.server.mysql;

import io.tablecast.server.metrics.ServerMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Where a {@link MysqlChangeSource} stands in the outbox: its {@link GapTracker} (the highest id
 * delivered and the skipped ids below it), and what others are told of it after every read: the
 * outbox pruning (never past an unresolved id), the open-gaps gauge and the capture check (the
 * highest id read, from its own thread). Confined to the tail thread, but for those two values.
 */
final class OutboxPosition {
  private final GapFacts facts;
  private final MysqlOutboxPruning pruning;
  private final ServerMetrics metrics;

  /** Null until the source took a snapshot or resumed. */
  private GapTracker gaps;

  private volatile int openGaps;

  /** The highest outbox id read, for the capture check on its own thread. */
  private volatile long lastReadId;

  OutboxPosition(GapFacts facts, MysqlOutboxPruning pruning, ServerMetrics metrics) {
    this.facts = facts;
    this.pruning = pruning;
    this.metrics = metrics;
    metrics.outboxGapsGauge(() -> openGaps);
  }

  /**
   * Starts after a snapshot that saw the outbox's ids {@code ids}, the open transactions as {@code
   * look} showed them.
   *
   * @param probeWait without innodb_trx, how long lock probes must find a skipped id neither
   *     present nor locked before it counts as rolled back
   */
  void start(OutboxIdRange ids, GapTracker.Look look, Duration probeWait) {
    gaps = tracker(probeWait);
    gaps.start(ids.min(), ids.max(), ids.missing(), look);
    published();
  }

  /** Resumes at an earlier run's {@code cursor}, its gaps settled again by the next looks. */
  void resume(OutboxCursor cursor, Duration probeWait) {
    GapTracker resumed = tracker(probeWait);
    resumed.restore(cursor);
    gaps = resumed;
    pruning.acknowledged(cursor.lowestUnresolved());
    published();
  }

  private GapTracker tracker(Duration probeWait) {
    GapTracker tracker = new GapTracker(probeWait.toNanos());
    if (facts.probing()) {
      tracker.useProbes();
    }
    return tracker;
  }

  /** The tracker the next read asks what to read and the next look stamps; null before a start. */
  GapTracker gaps() {
    return gaps;
  }

  /** The cursor of where the tail stands ({@link OutboxCursor}), or null before a start. */
  String cursor() {
    GapTracker g = gaps;
    return g == null ? null : g.cursor().encode();
  }

  /**
   * Clients confirmed {@code cursor}: the outbox is pruned below its unresolved ids from now on.
   */
  void acknowledged(String cursor) {
    if (!cursor.equals(OutboxCursor.TOO_LONG)) { // one too long to send: prunes as before
      pruning.acknowledged(OutboxCursor.parse(cursor).lowestUnresolved());
    }
  }

  /**
   * A read that succeeded returned {@code ids}, and {@code look} (or null) followed it: probes the
   * gaps that are due, moves past the ids and the gaps resolved, and tells the others. Returns how
   * many ids were dropped as rolled back. Only once the read succeeded: a database error before
   * leaves the position unchanged.
   */
  int advance(List<Long> ids, GapTracker.Look look) throws SQLException {
    if (gaps.needsProbes()) {
      facts.probeDueGaps(gaps);
    }
    int dropped = gaps.apply(ids, look, System.nanoTime());
    published();
    if (facts.probing() && dropped > 0) {
      metrics.gapsExpired(dropped); // dropped on lock probes, not on innodb_trx
    }
    return dropped;
  }

  /** The highest outbox id read; any thread. */
  long lastReadId() {
    return lastReadId;
  }

  private void published() {
    pruning.progress(gaps.lowestUnresolved(), gaps.maxSeen());
    openGaps = gaps.gapCount();
    lastReadId = gaps.maxSeen();
  }
}
