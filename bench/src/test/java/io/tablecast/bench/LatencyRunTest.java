package io.tablecast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyRunTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 5_000 * MS; // a System.nanoTime() value, as the writer keeps it

  // operations as OpenLoopWriter and the visible listener leave them (0 = did not happen)
  private final long[] intended = new long[7];
  private final long[] committed = new long[7];
  private final long[] visible = new long[7];

  LatencyRunTest() {
    op(0, 0, 2 * MS, 3 * MS); // due at the start, visible 3 ms after its commit
    op(1, 500 * MS, MS, 0); // committed, never seen
    op(2, 600 * MS, 0, 0); // started, did not commit before the writers stopped
    op(3, 1_000 * MS - 1, MS, 7 * MS); // the last one due within the first second
    op(4, 1_000 * MS, MS, 500 * MS); // due exactly 1 s after the start: the second after
    op(5, 1_500 * MS, MS, 0); // later, never seen: not the first second's
    // 6: never ran (all 0), which with a positive t0 would look due before the start
  }

  private void op(int i, long due, long commitAfterDue, long visibleAfterCommit) {
    intended[i] = T0 + due;
    committed[i] = commitAfterDue == 0 ? 0 : intended[i] + commitAfterDue;
    visible[i] = visibleAfterCommit == 0 ? 0 : committed[i] + visibleAfterCommit;
  }

  @Test
  void takesTheCommittedOperationsDueInTheFirstSecondAfterTheWritersStarted() {
    LatencyRun.FirstSecond f = LatencyRun.firstSecond(T0, intended, committed, visible);

    assertThat(f.samples()).isEqualTo(2);
    assertThat(f.fromCommit().getMinValue())
        .isEqualTo(f.fromCommit().lowestEquivalentValue(3 * MS));
    assertThat(Hist.maxMs(f.fromCommit())).isCloseTo(7.0, within(0.01));
  }

  @Test
  void countsCommittedButUnseenOperationsOfTheFirstSecondAsNotSeen() {
    LatencyRun.FirstSecond f = LatencyRun.firstSecond(T0, intended, committed, visible);

    assertThat(f.missing()).isEqualTo(1);
  }
}
