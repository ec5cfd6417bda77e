package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.mysql.GapTracker.Look;
import io.tablecast.server.mysql.GapTracker.Probe;
import java.util.List;
import org.junit.jupiter.api.Test;

class GapTrackerTest {
  static final long PROBE_WAIT = 1_000;

  /** Looks are spaced like the source spaces them. */
  private static final long MARGIN = 250_000;

  static final long NONE = Long.MAX_VALUE;

  /** Database times, micros: a gap seen at T0. */
  static final long T0 = 10_000_000_000L;

  /** A fresh look: the cache was refreshed after the look began. */
  static Look writers(long nowMicros, long oldestWriterStartMicros) {
    return new Look(nowMicros, oldestWriterStartMicros, true);
  }

  private static Look stale(long nowMicros) {
    return new Look(nowMicros, Long.MAX_VALUE, false);
  }

  @Test
  void skippedIdStaysReadableWhileAWriterOlderThanItIsOpenAndIsDeliveredWhenItCommits() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 3, List.of(), writers(T0 - 5_000_000, NONE));
    t.apply(List.of(5L), writers(T0, T0 - 1_000_000), 0); // id 4 skipped; a writer began 1 s before
    assertThat(t.whereClause()).isEqualTo("id > 5 OR id IN (4)");
    for (int i = 1; i <= 3; i++) {
      assertThat(t.apply(List.of(), writers(T0 + i * 10_000_000L, T0 - 1_000_000), 0)).isZero();
    }
    assertThat(t.wanted(4)).isTrue();
    t.apply(List.of(4L), writers(T0 + 40_000_000, NONE), 0); // committed late: found by the re-read
    assertThat(t.whereClause()).isEqualTo("id > 5");
    assertThat(t.wanted(4)).isFalse();
  }

  @Test
  void gapIsDroppedOnlyAfterOlderWritersEndedAndOneMoreReadFoundNothing() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    assertThat(t.apply(List.of(), writers(T0 + MARGIN, NONE), 0))
        .isZero(); // settled: the next read is final
    assertThat(t.whereClause()).contains("IN (2)");
    assertThat(t.apply(List.of(), writers(T0 + MARGIN + 1, NONE), 0)).isEqualTo(1);
    assertThat(t.whereClause()).isEqualTo("id > 3");
    assertThat(t.lowestUnresolved()).isEqualTo(3);
  }

  @Test
  void aStaleLookAtTheTransactionCacheSettlesNothing() {
    // innodb_trx is refreshed only after 100 ms without readers: a stale look may miss the holder
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    for (int i = 1; i <= 5; i++) {
      assertThat(t.apply(List.of(), stale(T0 + i * MARGIN), 0)).isZero();
    }
    assertThat(t.whereClause()).as("not settled by stale looks").contains("IN (2)");
    assertThat(t.apply(List.of(), writers(T0 + 6 * MARGIN, NONE), 0)).isZero();
    assertThat(t.apply(List.of(), writers(T0 + 7 * MARGIN, NONE), 0)).isEqualTo(1);
  }

  @Test
  void aGapSeenWithoutALookIsStampedByTheNextLookAndSettledOnlyByALaterOne() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), null, 0); // looks are spaced: none after this read
    assertThat(t.needsLook()).isTrue();
    assertThat(t.apply(List.of(), writers(T0, NONE), 0)).isZero(); // stamps it
    assertThat(t.wanted(2)).isTrue();
    assertThat(t.apply(List.of(), writers(T0 + MARGIN, NONE), 0)).isZero(); // settles it
    assertThat(t.apply(List.of(), null, 0)).isEqualTo(1); // the final read
  }

  @Test
  void theLookThatStampsAGapCannotSettleIt() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    assertThat(t.apply(List.of(), writers(T0, NONE), 0)).isZero();
    assertThat(t.apply(List.of(), null, 0)).isZero();
    assertThat(t.wanted(2)).isTrue();
  }

  @Test
  void aLateLookStillCountsEveryWriterThatBeganBeforeTheGap() {
    // the first look after the gap comes seconds later (pruning, a slow hub, a database error):
    // the holder is still open and still counts, whatever the cache held when the gap was seen
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    assertThat(t.apply(List.of(), writers(T0 + 5_000_000, T0 - 50_000), 0)).isZero();
    assertThat(t.apply(List.of(), writers(T0 + 6_000_000, T0 - 50_000), 0)).isZero();
    assertThat(t.wanted(2)).isTrue();
  }

  @Test
  void writersThatBeganAfterTheGapDoNotHoldIt() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    t.apply(
        List.of(), writers(T0 + 2_000_000, T0 + 1_000_000), 0); // busy, but with newer transactions
    assertThat(t.apply(List.of(), writers(T0 + 2_000_001, T0 + 1_000_000), 0)).isEqualTo(1);
  }

  @Test
  void trxStartedWithWholeSecondsMakesAWriterOfTheSameSecondCount() {
    // trx_started has whole seconds: a writer that began 0.4 s after the gap shows the gap's second
    GapTracker t = new GapTracker(PROBE_WAIT);
    long second = T0 / 1_000_000 * 1_000_000;
    t.start(1, 1, List.of(), writers(second + 100_000, NONE));
    t.apply(List.of(3L), writers(second + 500_000, NONE), 0);
    assertThat(t.apply(List.of(), writers(second + 2_000_000, second), 0)).isZero();
    assertThat(t.apply(List.of(), writers(second + 3_000_000, second), 0)).isZero();
    assertThat(t.wanted(2)).isTrue();
  }

  @Test
  void idsBelowTheSnapshotStayReadableUntilWritersOpenAtTheSnapshotEnd() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(10, 12, List.of(11L), writers(T0, T0 - 2_000_000));
    assertThat(t.whereClause()).isEqualTo("id > 12 OR id IN (11) OR id < 10");
    assertThat(t.lowestUnresolved()).isEqualTo(1); // nothing may be pruned
    assertThat(t.wanted(4)).isTrue();
    t.apply(
        List.of(4L), writers(T0 + MARGIN, T0 - 2_000_000), 0); // a late commit below the lowest id
    assertThat(t.whereClause()).isEqualTo("id > 12 OR id IN (11) OR id < 10");
    assertThat(t.wanted(4)).as("delivered once").isFalse();
    assertThat(t.wanted(5)).isTrue();
    t.apply(List.of(), writers(T0 + 2 * MARGIN, NONE), 0);
    t.apply(List.of(), writers(T0 + 3 * MARGIN, NONE), 0);
    assertThat(t.whereClause()).isEqualTo("id > 12");
  }

  @Test
  void longRunOfSkippedIdsIsTrackedAsOneRange() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(1_000_000_000L), writers(T0, T0 - 1), 0);
    assertThat(t.whereClause()).isEqualTo("id > 1000000000 OR id BETWEEN 2 AND 999999999");
    t.apply(List.of(77L), writers(T0 + MARGIN, T0 - 1), 0);
    assertThat(t.wanted(77)).isFalse();
    assertThat(t.wanted(78)).isTrue();
    assertThat(t.lowestUnresolved()).isEqualTo(2);
    t.apply(List.of(), writers(T0 + 2 * MARGIN, NONE), 0);
    t.apply(List.of(), writers(T0 + 3 * MARGIN, NONE), 0);
    assertThat(t.whereClause()).isEqualTo("id > 1000000000");
  }

  @Test
  void manyGapsAreReadAsOneRange() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(600L, 1200L), writers(T0, T0 - 1), 0); // 1197 single gaps in two runs
    assertThat(t.whereClause()).isEqualTo("id > 1200 OR id BETWEEN 2 AND 1199");
    assertThat(t.wanted(500)).isTrue();
    assertThat(t.wanted(600)).as("delivered, returned again by the range").isFalse();
    assertThat(t.wanted(1)).isFalse();
  }

  // ------------------------------------------------------------ without innodb_trx: lock probes

  @Test
  void withoutTheTransactionListAGapIsDroppedOnlyAfterProbesFoundItAbsentForTheWholeWait() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.useProbes();
    t.start(1, 1, List.of(), null);
    t.apply(List.of(3L), null, 0);
    assertThat(t.needsProbes()).isTrue();
    assertThat(t.idsToProbe(0, 100, 10)).containsExactly(new long[] {2, 3});
    t.probed(2, 3, Probe.ABSENT, 0);
    assertThat(t.idsToProbe(50, 100, 10)).as("probed at most once per interval").isEmpty();
    t.probed(2, 3, Probe.ABSENT, PROBE_WAIT - 1);
    assertThat(t.apply(List.of(), null, PROBE_WAIT - 1)).isZero();
    assertThat(t.wanted(2)).isTrue();
    t.probed(2, 3, Probe.ABSENT, PROBE_WAIT);
    assertThat(t.apply(List.of(), null, PROBE_WAIT)).isZero(); // settled: one more read
    assertThat(t.apply(List.of(), null, PROBE_WAIT + 1)).isEqualTo(1);
  }

  @Test
  void aLockedProbeKeepsTheGapOpenHoweverLongItsTransactionRuns() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.useProbes();
    t.start(1, 1, List.of(), null);
    t.apply(List.of(3L), null, 0);
    t.probed(2, 3, Probe.ABSENT, 0); // between taking its id and placing its row
    for (long now = 1; now <= 100 * PROBE_WAIT; now += PROBE_WAIT / 2) {
      t.probed(2, 3, Probe.LOCKED, now);
      assertThat(t.apply(List.of(), null, now)).isZero();
    }
    t.apply(List.of(2L), null, 101 * PROBE_WAIT); // it committed
    assertThat(t.whereClause()).isEqualTo("id > 3");
    assertThat(t.needsProbes()).isFalse();
  }

  @Test
  void probedRangeBelowTheSnapshotIsDroppedWhenNothingInItIsLocked() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.useProbes();
    t.start(5, 6, List.of(), null);
    assertThat(t.idsToProbe(0, 100, 10)).containsExactly(new long[] {1, 5});
    t.probed(1, 5, Probe.LOCKED, 0);
    t.apply(List.of(), null, PROBE_WAIT);
    assertThat(t.whereClause()).contains("id < 5");
    t.probed(1, 5, Probe.ABSENT, PROBE_WAIT);
    t.probed(1, 5, Probe.ABSENT, 2 * PROBE_WAIT);
    t.apply(List.of(), null, 2 * PROBE_WAIT);
    t.apply(List.of(), null, 2 * PROBE_WAIT + 1);
    assertThat(t.whereClause()).isEqualTo("id > 6");
  }
}
