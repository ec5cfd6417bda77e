package io.tablecast.protocol.row;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rows of a table in their row form ({@link RowForm}), found by key: an open-addressing hash
 * index (linear probing, backward-shift deletion, no tombstones) over the rows themselves. A row's
 * key is a slice at its start, so the index hashes and compares it in place: no key object, no map
 * entry, no boxed hash per row, about 14 bytes of index per row beside the row's own array. Rows
 * are immutable byte arrays and may be shared with readers of a copy ({@link #rows()}).
 *
 * <p>Not thread-safe: one owner thread (the server's hub), or the owner's own locking.
 */
public final class RowTable {
  private static final int MIN_CAPACITY = 16;

  private byte[][] rows;

  /** Per slot, the hash of its row's key; meaningful where {@code rows[slot] != null}. */
  private int[] hashes;

  private int size;

  /**
   * Per slot, one bit: whether its row was marked since {@link #startMarking}; null while not
   * marking. Bits move with their rows (growth, backward shifts).
   */
  private long[] marks;

  /** A table sized for {@code expectedRows} without growing. */
  public RowTable(int expectedRows) {
    int capacity = MIN_CAPACITY;
    while (capacity * 3L / 4 < expectedRows) {
      capacity <<= 1;
    }
    rows = new byte[capacity][];
    hashes = new int[capacity];
  }

  public RowTable() {
    this(0);
  }

  public int size() {
    return size;
  }

  /** The row with this key, or null. */
  public byte[] get(byte[] key) {
    int hash = hash(key, 0, key.length);
    int mask = rows.length - 1;
    for (int slot = hash & mask; rows[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash && keyEquals(rows[slot], key)) {
        return rows[slot];
      }
    }
    return null;
  }

  /** Puts a row, replacing the row of the same key; returns the replaced row, or null. */
  public byte[] put(byte[] row) {
    int start = RowForm.keyStart(row);
    int length = RowForm.keyLength(row);
    int hash = hash(row, start, start + length);
    int mask = rows.length - 1;
    int slot = hash & mask;
    for (; rows[slot] != null; slot = (slot + 1) & mask) {
      byte[] other = rows[slot];
      if (hashes[slot] == hash && sameKey(other, row, start, length)) {
        rows[slot] = row;
        setMark(slot);
        return other;
      }
    }
    rows[slot] = row;
    hashes[slot] = hash;
    setMark(slot);
    if (++size > rows.length * 3L / 4) {
      resize(rows.length << 1);
    }
    return null;
  }

  /** Removes the row with this key; returns it, or null. */
  public byte[] remove(byte[] key) {
    int hash = hash(key, 0, key.length);
    int mask = rows.length - 1;
    for (int slot = hash & mask; rows[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash && keyEquals(rows[slot], key)) {
        byte[] removed = rows[slot];
        shiftBack(slot);
        size--;
        return removed;
      }
    }
    return null;
  }

  public void clear() {
    Arrays.fill(rows, null);
    if (marks != null) {
      Arrays.fill(marks, 0);
    }
    size = 0;
  }

  /**
   * Starts marking rows: from now until {@link #stopMarking}, every row put is marked, and {@link
   * #markAndGet} marks the row it finds; the rows here now start unmarked. How a reconciliation
   * pass remembers the rows it saw: one bit per slot, not a set of keys.
   */
  public void startMarking() {
    marks = new long[(rows.length + 63) >>> 6];
  }

  /** Forgets the marks. */
  public void stopMarking() {
    marks = null;
  }

  /** True between {@link #startMarking} and {@link #stopMarking}. */
  public boolean marking() {
    return marks != null;
  }

  /** As {@link #get}, and marks the row found while marking. */
  public byte[] markAndGet(byte[] key) {
    int hash = hash(key, 0, key.length);
    int mask = rows.length - 1;
    for (int slot = hash & mask; rows[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash && keyEquals(rows[slot], key)) {
        setMark(slot);
        return rows[slot];
      }
    }
    return null;
  }

  /**
   * Every row not marked since {@link #startMarking}, in no particular order: a scan of the marks
   * and of the references of unmarked slots, no row read.
   *
   * @throws IllegalStateException when not marking
   */
  public void forEachUnmarked(Consumer<byte[]> action) {
    if (marks == null) {
      throw new IllegalStateException("not marking");
    }
    for (int word = 0; word < marks.length; word++) {
      long unmarked = ~marks[word];
      while (unmarked != 0) {
        int slot = (word << 6) + Long.numberOfTrailingZeros(unmarked);
        unmarked &= unmarked - 1;
        if (slot < rows.length && rows[slot] != null) {
          action.accept(rows[slot]);
        }
      }
    }
  }

  /** Every row, in no particular order. */
  public void forEach(Consumer<byte[]> action) {
    for (byte[] row : rows) {
      if (row != null) {
        action.accept(row);
      }
    }
  }

  /** A copy of the row list (the rows themselves are shared: they never change). */
  public List<byte[]> rows() {
    List<byte[]> out = new ArrayList<>(size);
    forEach(out::add);
    return out;
  }

  /**
   * Bytes this table holds on the heap beside the rows' arrays: the index (references and hashes).
   */
  public long indexBytes() {
    return (long) rows.length * (4 + 4) + (marks == null ? 0 : marks.length * 8L);
  }

  /**
   * The hash of a key's bytes ({@code bytes[from, to)}), the one this index uses; for other sets or
   * maps of keys in the row form too. FNV-1a over the bytes, then murmur3's finalizer so that keys
   * differing in a few bits (consecutive integers) spread over a power-of-two table. (A {@code 31 *
   * h + b} polynomial gives the 1,000,000 varint keys 1..1,000,000 only about 127,000 distinct
   * values: eight rows per hash and long probe runs.)
   */
  public static int hash(byte[] bytes, int from, int to) {
    int h = 0x811c9dc5;
    for (int i = from; i < to; i++) {
      h = (h ^ (bytes[i] & 0xff)) * 0x01000193;
    }
    h ^= h >>> 16; // murmur3's finalizer
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  private static boolean keyEquals(byte[] row, byte[] key) {
    int start = RowForm.keyStart(row);
    return RowForm.keyLength(row) == key.length
        && Arrays.equals(row, start, start + key.length, key, 0, key.length);
  }

  private static boolean sameKey(byte[] stored, byte[] probe, int probeStart, int probeLength) {
    int start = RowForm.keyStart(stored);
    return RowForm.keyLength(stored) == probeLength
        && Arrays.equals(
            stored, start, start + probeLength, probe, probeStart, probeStart + probeLength);
  }

  /**
   * Backward-shift deletion: moves later rows of the probe run into the gap, so lookups never stop
   * early.
   */
  private void shiftBack(int gap) {
    int mask = rows.length - 1;
    int slot = gap;
    while (true) {
      slot = (slot + 1) & mask;
      if (rows[slot] == null) {
        rows[gap] = null;
        clearMark(gap);
        return;
      }
      int home = hashes[slot] & mask;
      // the row at slot may move to gap when its home is not in (gap, slot], cyclically
      boolean movable = gap <= slot ? (home <= gap || home > slot) : (home <= gap && home > slot);
      if (movable) {
        rows[gap] = rows[slot];
        hashes[gap] = hashes[slot];
        if (marked(slot)) {
          setMark(gap);
        } else {
          clearMark(gap);
        }
        gap = slot;
      }
    }
  }

  private void resize(int capacity) {
    byte[][] oldRows = rows;
    int[] oldHashes = hashes;
    long[] oldMarks = marks;
    rows = new byte[capacity][];
    hashes = new int[capacity];
    marks = oldMarks == null ? null : new long[(capacity + 63) >>> 6];
    int mask = capacity - 1;
    for (int i = 0; i < oldRows.length; i++) {
      if (oldRows[i] != null) {
        int slot = oldHashes[i] & mask;
        while (rows[slot] != null) {
          slot = (slot + 1) & mask;
        }
        rows[slot] = oldRows[i];
        hashes[slot] = oldHashes[i];
        if (oldMarks != null && (oldMarks[i >>> 6] & (1L << i)) != 0) {
          setMark(slot);
        }
      }
    }
  }

  private void setMark(int slot) {
    if (marks != null) {
      marks[slot >>> 6] |= 1L << slot;
    }
  }

  private void clearMark(int slot) {
    if (marks != null) {
      marks[slot >>> 6] &= ~(1L << slot);
    }
  }

  private boolean marked(int slot) {
    return marks != null && (marks[slot >>> 6] & (1L << slot)) != 0;
  }
}
