package io.tablecast.server.hub;

import java.util.Set;
import java.util.TreeSet;

/**
 * The positions at which the hub applied the differences of a table read (a reconciliation that
 * repaired an image, a resync, a snapshot published again): a replay from the {@link BatchHistory}
 * cannot compute them without the image of that time, while a read that changed nothing took no
 * position and is skipped. Known from the position the hub started at; the oldest are forgotten
 * past {@link #MAX}. Hub thread only.
 */
final class TableReadPositions {

  /** Positions kept; older ones are forgotten, and replays from before them take a snapshot. */
  static final int MAX = 10_000;

  private final TreeSet<Long> positions = new TreeSet<>();

  /** Reads at or before this position are not known; -1 before the hub started. */
  private long knownAfter = -1;

  /** The hub's images are at {@code position}: it knows every read after it. */
  void started(long position) {
    if (knownAfter < 0) {
      knownAfter = position;
    }
  }

  /** The differences of a table read were applied at {@code position}. */
  void applied(long position) {
    positions.add(position);
    if (positions.size() > MAX) {
      knownAfter = positions.pollFirst();
    }
  }

  /**
   * The positions after {@code from} at which a table read changed an image; null when the hub does
   * not know them all (it started, or forgot, after {@code from}).
   */
  Set<Long> after(long from) {
    if (knownAfter < 0 || from < knownAfter) {
      return null;
    }
    return Set.copyOf(positions.tailSet(from, false));
  }
}
