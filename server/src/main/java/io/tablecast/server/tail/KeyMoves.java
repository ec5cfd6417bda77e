package io.tablecast.server.tail;

import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The rows the changes of one batch have so far moved onto another key (an UPDATE of the key), by
 * identity, and the rule by which a later change of the batch leaves a key. Within one PostgreSQL
 * transaction a DEFERRABLE key lets two rows share a key for a while (a swap: 1 to 2, then 2 to 1):
 * a change that leaves a key a moved row holds, naming another row as its row there, leaves the
 * moved row in place ({@code KeySwapTest}). The image ({@code TableImage.apply}) and a
 * reconciliation range brought forward through later batches ({@link RangeInFlight}) follow this
 * one rule: while they followed two, a range in flight across a swap lacked the row the image held,
 * and the pass deleted it from the image and every mirror.
 */
public final class KeyMoves {
  private Set<byte[]> moved; // created by the first move: most batches move no key

  /** {@code row} was moved onto its key by a change of this batch. */
  public void moved(byte[] row) {
    if (moved == null) {
      moved = Collections.newSetFromMap(new IdentityHashMap<>());
    }
    moved.add(row);
  }

  /** True when a change of this batch moved a row onto another key. */
  public boolean any() {
    return moved != null && !moved.isEmpty();
  }

  /**
   * Whether a change that leaves a key, naming {@code before} (null: unknown, as a MySQL/MariaDB
   * delete) as its row there, takes away {@code held}, the row the key holds now (null: none).
   */
  public boolean takesAway(byte[] held, byte[] before) {
    return held == null
        || before == null
        || !any()
        || !moved.contains(held)
        || Arrays.equals(held, before);
  }

  /** Forgets the moves: the next batch begins. */
  public void clear() {
    if (any()) {
      moved.clear();
    }
  }
}
