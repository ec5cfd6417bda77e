package io.tablecast.server.mysql;

import static io.tablecast.server.mysql.GapTrackerTest.NONE;
import static io.tablecast.server.mysql.GapTrackerTest.PROBE_WAIT;
import static io.tablecast.server.mysql.GapTrackerTest.T0;
import static io.tablecast.server.mysql.GapTrackerTest.writers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A MySQL/MariaDB tail's position as a cursor: a tracker restored from it reads exactly what the
 * original would (the ids above its highest, its gaps, its ranges less what they delivered), and
 * settles the gaps anew instead of trusting an earlier run's looks.
 */
class OutboxCursorTest {
  private static GapTracker restored(GapTracker original) {
    String text = original.cursor().encode();
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.restore(OutboxCursor.parse(text));
    return t;
  }

  @Test
  void aRestoredTrackerReadsWhatTheOriginalWouldGapsAndRangesIncluded() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 3, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(5L, 9L), writers(T0, T0 - 1), 0); // 4, 6, 7, 8 skipped, a writer open
    t.apply(List.of(5_000L), writers(T0 + 1, T0 - 1), 0); // a run too long to list: a range
    t.apply(List.of(77L), writers(T0 + 2, T0 - 1), 0); // delivered inside the range

    GapTracker r = restored(t);
    assertThat(r.whereClause()).isEqualTo(t.whereClause());
    assertThat(r.maxSeen()).isEqualTo(5_000);
    assertThat(r.lowestUnresolved()).isEqualTo(t.lowestUnresolved()).isEqualTo(4);
    assertThat(r.wanted(77)).as("delivered before the cursor: not again").isFalse();
    assertThat(r.wanted(78)).isTrue();
    assertThat(r.wanted(6)).isTrue();
    assertThat(r.wanted(5)).isFalse();
  }

  @Test
  void restoredGapsAreSettledByTheResumedRunsOwnLooksNeverByTheEarlierOnes() {
    GapTracker t = new GapTracker(PROBE_WAIT);
    t.start(1, 1, List.of(), writers(T0 - 1, NONE));
    t.apply(List.of(3L), writers(T0, NONE), 0);
    t.apply(List.of(), writers(T0 + 1, NONE), 0); // settled here: the next read would drop 2

    GapTracker r = restored(t);
    long later = T0 + 60_000_000;
    assertThat(r.apply(List.of(), writers(later, later - 5_000_000), 0))
        .as("the first look only stamps it; a writer of before is open")
        .isZero();
    assertThat(r.apply(List.of(), writers(later + 1, later - 5_000_000), 0)).isZero();
    assertThat(r.wanted(2)).as("held by the open writer: still read").isTrue();
    r.apply(List.of(2L), writers(later + 2, NONE), 0); // it commits: delivered after the restart
    assertThat(r.whereClause()).isEqualTo("id > 3");
  }

  @Test
  void aPositionTooLongForANatsHeaderIsRecordedAsUnresumable() {
    List<Long> ids = new ArrayList<>();
    for (long id = 1_000_000_000L; id < 1_000_000_400L; id += 2) {
      ids.add(id); // 200 gaps of ten digits: over 2,048 characters
    }
    OutboxCursor many = new OutboxCursor(1_000_000_401L, ids, List.of());
    assertThat(many.encode()).isEqualTo(OutboxCursor.TOO_LONG);
    assertThatThrownBy(() -> OutboxCursor.parse(OutboxCursor.TOO_LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more unresolved ids than a cursor holds");
  }

  @Test
  void aCursorOfAnotherSourceIsRefusedByName() {
    assertThatThrownBy(() -> OutboxCursor.parse("1a2b:3c4d:")) // a pg_snapshot
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a MySQL/MariaDB outbox cursor");
  }
}
