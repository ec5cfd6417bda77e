package io.tablecast.server.tail;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Rows that share a key within one batch, and the rule by which a change that leaves a key takes
 * its row away. A PostgreSQL DEFERRABLE key lets a transaction move a row onto a key another row
 * still holds, or insert one there, and check only at commit: a swap (1 to 2, then 2 to 1), a shift
 * ({@code id = id + 1}), a row inserted into a list before the rows after it move on, a row that
 * passes through a held key and moves on. A copy of the table (the image, or a reconciliation range
 * brought forward through later batches, {@link RangeInFlight}) shows one row per key: the one that
 * arrived last, with the rows it hid kept here until a change takes them off the key, or shown
 * again when the row that hid them leaves. Both copies follow this one rule: while they had two, a
 * range in flight across a swap lacked the row the image held, and the pass deleted it from the
 * image and every mirror ({@code SharedKeysModelTest} checks both against a model of the table).
 *
 * <p>Only changes that name their row before (PostgreSQL) consult it: a MySQL/MariaDB change names
 * a key, and its row is the one the key shows.
 */
public final class KeyMoves {
  /**
   * A hidden row a copy does not hold itself: a range's own row on a key no change has touched
   * since its read. Shown again, it means "the range's row of the key, if it read one".
   */
  public static final byte[] UNREAD = new byte[0];

  /** The rows that arrived on their key in this batch (moved or inserted there), by identity. */
  private Set<byte[]> arrived;

  /** Key → the rows the arriving rows hid there, the last hidden last. */
  private Map<ByteBuffer, ArrayDeque<byte[]>> hidden;

  /**
   * Inserts not yet taken into {@link #arrived} and {@link #hidden}: key, row, row hidden (or null)
   * each. A MySQL/MariaDB change is an insert whose row hides the key's older state, and never asks
   * for them: they are taken in only when a change that names its row before comes.
   */
  private final ArrayList<byte[]> inserts = new ArrayList<>();

  /** {@code row}, inserted, arrived on {@code key}, where it hid {@code hid} (null: none). */
  public void inserted(byte[] key, byte[] row, byte[] hid) {
    inserts.add(key);
    inserts.add(row);
    inserts.add(hid);
  }

  /**
   * {@code row}, moved from another key, arrived on {@code key}, where it hid {@code hid} (null:
   * none; {@link #UNREAD}: the range's own row, if it read one), which holds the key in the
   * database until a change of the batch takes it off.
   */
  public void moved(byte[] key, byte[] row, byte[] hid) {
    takeInserts();
    arrive(key, row, hid);
  }

  private void arrive(byte[] key, byte[] row, byte[] hid) {
    if (arrived == null) {
      arrived = Collections.newSetFromMap(new IdentityHashMap<>());
      hidden = new HashMap<>();
    }
    arrived.add(row);
    if (hid != null) {
      hidden.computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayDeque<>(2)).addLast(hid);
    }
  }

  private void takeInserts() {
    for (int i = 0; i < inserts.size(); i += 3) {
      arrive(inserts.get(i), inserts.get(i + 1), inserts.get(i + 2));
    }
    inserts.clear();
  }

  /** True when a row arrived on a key in this batch. */
  public boolean any() {
    return !inserts.isEmpty() || (arrived != null && !arrived.isEmpty());
  }

  /**
   * A change leaves {@code key}, naming {@code before} (null: unknown, as a MySQL/MariaDB one) as
   * its row there, which shows {@code held} (null: none). Returns what the key shows after it:
   * {@code held} when the row leaving is one it hides, or another than the one that arrived there
   * in this batch; a row hidden by the one leaving ({@link #UNREAD} among them); or null.
   */
  public byte[] leave(byte[] key, byte[] held, byte[] before) {
    if (before == null || !any()) {
      return null;
    }
    takeInserts();
    ArrayDeque<byte[]> under = hidden == null ? null : hidden.get(ByteBuffer.wrap(key));
    if (held != null && Arrays.equals(held, before)) {
      if (under == null) {
        return null;
      }
      byte[] back = under.pollLast();
      if (under.isEmpty()) {
        hidden.remove(ByteBuffer.wrap(key));
      }
      return back;
    }
    if (under != null && replace(under, before, null)) {
      if (under.isEmpty()) {
        hidden.remove(ByteBuffer.wrap(key));
      }
      return held;
    }
    return held != null && arrived.contains(held) ? held : null;
  }

  /**
   * A change of {@code before} to {@code row} on the same key, which shows {@code held}: true when
   * {@code before} is a row hidden there, which now is {@code row}, still hidden (the key shows
   * {@code held} still and nothing is said).
   */
  public boolean changedHidden(byte[] key, byte[] held, byte[] before, byte[] row) {
    if (before == null || held == null || !any() || Arrays.equals(held, before)) {
      return false;
    }
    takeInserts();
    ArrayDeque<byte[]> under = hidden.get(ByteBuffer.wrap(key));
    return under != null && replace(under, before, row);
  }

  /**
   * Replaces (with null: removes) the row equal to {@code before} among {@code rows}, else an
   * {@link #UNREAD} one; false when there is neither.
   */
  private static boolean replace(ArrayDeque<byte[]> rows, byte[] before, byte[] with) {
    for (byte[] candidate : new byte[][] {before, UNREAD}) {
      ArrayDeque<byte[]> kept = new ArrayDeque<>(rows.size());
      boolean found = false;
      for (Iterator<byte[]> it = rows.iterator(); it.hasNext(); ) {
        byte[] r = it.next();
        boolean match =
            !found && (candidate == UNREAD ? r == UNREAD : r != UNREAD && Arrays.equals(r, before));
        if (match) {
          found = true;
          if (with != null) {
            kept.addLast(with);
          }
        } else {
          kept.addLast(r);
        }
      }
      if (found) {
        rows.clear();
        rows.addAll(kept);
        return true;
      }
    }
    return false;
  }

  /** Forgets the batch: the next begins. */
  public void clear() {
    inserts.clear();
    if (arrived != null && !arrived.isEmpty()) {
      arrived.clear();
      hidden.clear();
    }
  }
}
