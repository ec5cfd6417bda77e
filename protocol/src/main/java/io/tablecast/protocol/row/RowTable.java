package io.tablecast.protocol.row;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rows of a table in their row form ({@link RowForm}), found by key: an open-addressing hash
 * index (linear probing, backward-shift deletion, no tombstones) over the rows themselves. A row's
 * key is a slice at its start, so the index hashes and compares it in place: no key object, no map
 * entry, no boxed hash per row, about 14 bytes of index per row beside the row's own array. Rows
 * are immutable byte arrays and may be shared with readers of a copy ({@link #rows()}). The slots'
 * references lie in pages of {@link #PAGE_SLOTS}, so that such a copy shares them and a write after
 * it copies only the page it writes to.
 *
 * <p>Not thread-safe: one owner thread (the server's hub), or the owner's own locking.
 */
public final class RowTable {
  private static final int MIN_CAPACITY = 16;

  /** Slots per page of references at most (4 KiB of compressed references). */
  static final int PAGE_SLOTS = 1 << 10;

  /** Slots in all: a power of two. */
  private int capacity;

  /** The slots' rows (null where empty), {@code pageSlots} a page. */
  private byte[][][] pages;

  private int pageShift;
  private int pageMask;

  /** Per page, one bit: the page is held by a view ({@link #rows()}), copied before a write. */
  private long[] sharedPages;

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
    allocate(capacityFor(expectedRows));
  }

  /** The fewest slots that hold {@code rows} rows: a power of two, at most three quarters full. */
  private static int capacityFor(int rows) {
    int capacity = MIN_CAPACITY;
    while (capacity * 3L / 4 < rows) {
      capacity <<= 1;
    }
    return capacity;
  }

  public RowTable() {
    this(0);
  }

  public int size() {
    return size;
  }

  /** The row with this key, or null. */
  public byte[] get(byte[] key) {
    int slot = find(key);
    return slot < 0 ? null : row(slot);
  }

  /** The slot of the row with this key, or -1. */
  private int find(byte[] key) {
    int hash = KeyHash.of(key, 0, key.length);
    int mask = capacity - 1;
    for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
      byte[] row = row(slot);
      if (row == null) {
        return -1;
      }
      if (hashes[slot] == hash && keyEquals(row, key)) {
        return slot;
      }
    }
  }

  /**
   * Puts the first {@code count} of {@code rows}, given the hash of each one's key ({@link
   * KeyHash#ofRowKey}) in {@code keyHashes} (the same index), in the order of the index pages they
   * hash to rather than in the order given: how a whole table read is loaded. A page is written by
   * a run of puts, not by one put now and another later, which matters once the pages are in the
   * old generation: under G1 each write of a young row into an old page dirties its card for the
   * concurrent refinement threads, and a card dirtied once per run instead of once per put costs
   * them a fraction (docs/BENCHMARKS.md, "Server start: a snapshot's rows put page by page"). Rows
   * of one key: the last one given is kept.
   */
  public void putAll(byte[][] rows, int[] keyHashes, int count) {
    int needed = capacityFor(size + count);
    if (needed > capacity) {
      resize(needed); // once, before: the order below is the new capacity's
    }
    int mask = capacity - 1;
    int[] next = new int[pages.length + 1]; // a counting sort by page: starts, then ends
    for (int i = 0; i < count; i++) {
      next[((keyHashes[i] & mask) >>> pageShift) + 1]++;
    }
    for (int p = 1; p < next.length; p++) {
      next[p] += next[p - 1];
    }
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[next[(keyHashes[i] & mask) >>> pageShift]++] = i; // stable: one key's rows in turn
    }
    for (int i : order) {
      put(rows[i], keyHashes[i]);
    }
  }

  /** Puts a row, replacing the row of the same key; returns the replaced row, or null. */
  public byte[] put(byte[] row) {
    return put(row, KeyHash.ofRowKey(row));
  }

  private byte[] put(byte[] row, int hash) {
    int mask = capacity - 1;
    int slot = hash & mask;
    for (byte[] other; (other = row(slot)) != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == hash
          && sameKey(other, row, RowForm.keyStart(row), RowForm.keyLength(row))) {
        setRow(slot, row);
        setMark(slot);
        return other;
      }
    }
    setRow(slot, row);
    hashes[slot] = hash;
    setMark(slot);
    if (++size > capacity * 3L / 4) {
      resize(capacity << 1);
    }
    return null;
  }

  /** Removes the row with this key; returns it, or null. */
  public byte[] remove(byte[] key) {
    int slot = find(key);
    if (slot < 0) {
      return null;
    }
    byte[] removed = row(slot);
    shiftBack(slot);
    size--;
    return removed;
  }

  /**
   * Shrinks the index when it has four times the slots its rows need or more (a table sized for an
   * estimate that was far too high): then it has twice what they need, room to grow once.
   */
  public void fit() {
    int needed = capacityFor(size);
    if (capacity >= 4L * needed) {
      resize(needed << 1);
    }
  }

  public void clear() {
    for (int p = 0; p < pages.length; p++) {
      if (shared(p)) {
        pages[p] = new byte[pageMask + 1][]; // the view keeps its page
      } else {
        Arrays.fill(pages[p], null);
      }
    }
    Arrays.fill(sharedPages, 0);
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
    marks = new long[(capacity + 63) >>> 6];
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
    int slot = find(key);
    if (slot < 0) {
      return null;
    }
    setMark(slot);
    return row(slot);
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
        byte[] row = slot < capacity ? row(slot) : null;
        if (row != null) {
          action.accept(row);
        }
      }
    }
  }

  /** Every row, in no particular order. */
  public void forEach(Consumer<byte[]> action) {
    FrozenRows.forEach(pages, action);
  }

  /**
   * The rows as they are now, in no particular order: an immutable list that later writes do not
   * change. Costs a copy of the table of pages now (a reference per {@link #PAGE_SLOTS} slots); a
   * later write copies the page it writes to, once however many lists were taken meanwhile. The
   * rows themselves are shared: they never change.
   */
  public List<byte[]> rows() {
    Arrays.fill(sharedPages, -1L);
    return new FrozenRows(pages.clone(), size);
  }

  /**
   * Bytes this table holds on the heap beside the rows' arrays: the index (references and hashes,
   * and the table of pages).
   */
  public long indexBytes() {
    return (long) capacity * (4 + 4) + pages.length * 4L + (marks == null ? 0 : marks.length * 8L);
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
    int mask = capacity - 1;
    int slot = gap;
    while (true) {
      slot = (slot + 1) & mask;
      byte[] row = row(slot);
      if (row == null) {
        setRow(gap, null);
        clearMark(gap);
        return;
      }
      int home = hashes[slot] & mask;
      // the row at slot may move to gap when its home is not in (gap, slot], cyclically
      boolean movable = gap <= slot ? (home <= gap || home > slot) : (home <= gap && home > slot);
      if (movable) {
        setRow(gap, row);
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

  /** New, empty slots: {@code capacity} of them, a power of two. */
  private void allocate(int capacity) {
    this.capacity = capacity;
    pageShift = Math.min(Integer.numberOfTrailingZeros(capacity), 10);
    pageMask = (1 << pageShift) - 1;
    pages = new byte[capacity >>> pageShift][][];
    for (int p = 0; p < pages.length; p++) {
      pages[p] = new byte[pageMask + 1][];
    }
    sharedPages = new long[(pages.length + 63) >>> 6];
    hashes = new int[capacity];
  }

  private void resize(int newCapacity) {
    int oldCapacity = capacity;
    byte[][][] oldPages = pages; // views keep them
    int oldShift = pageShift;
    int oldMask = pageMask;
    int[] oldHashes = hashes;
    long[] oldMarks = marks;
    allocate(newCapacity);
    marks = oldMarks == null ? null : new long[(newCapacity + 63) >>> 6];
    int mask = newCapacity - 1;
    for (int i = 0; i < oldCapacity; i++) {
      byte[] row = oldPages[i >>> oldShift][i & oldMask];
      if (row != null) {
        int slot = oldHashes[i] & mask;
        while (row(slot) != null) {
          slot = (slot + 1) & mask;
        }
        setRow(slot, row);
        hashes[slot] = oldHashes[i];
        if (oldMarks != null && (oldMarks[i >>> 6] & (1L << i)) != 0) {
          setMark(slot);
        }
      }
    }
  }

  private byte[] row(int slot) {
    return pages[slot >>> pageShift][slot & pageMask];
  }

  /** Writes a slot; a page a view holds is copied first (copy on write). */
  private void setRow(int slot, byte[] row) {
    int p = slot >>> pageShift;
    if (shared(p)) {
      pages[p] = pages[p].clone();
      sharedPages[p >>> 6] &= ~(1L << p);
    }
    pages[p][slot & pageMask] = row;
  }

  private boolean shared(int page) {
    return (sharedPages[page >>> 6] & (1L << page)) != 0;
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
