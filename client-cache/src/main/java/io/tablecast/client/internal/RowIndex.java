package io.tablecast.client.internal;

import io.tablecast.protocol.row.KeyHash;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * A mirror's rows by normalized key (see {@code TableMirror}): open addressing with linear probing
 * and backward-shift deletion (no tombstones), keys that are {@code Long}s (a single integral key
 * column, the common case) kept as primitive {@code long}s. Per row it holds a slot of 12 bytes (a
 * {@code long} and a reference; 4 more once a key of another kind came), at a load factor of 3/8 to
 * 3/4: no map entry and no boxed key per row, which a {@code ConcurrentHashMap} would add (about 48
 * bytes a row).
 *
 * <p>One writer; readers may run beside it (the optimistic reads of {@code MirrorRows}): a reader
 * takes the arrays once through {@link #slots}, never probes more slots than there are, and may
 * then read a wrong value or fail with an index out of bounds while a change is being made, which
 * the caller's lock validation discards. A well-kept primitive map (fastutil, HPPC) offers no such
 * promise for reads beside a writer, hence this small one.
 *
 * @param <V> the row type
 */
public final class RowIndex<V> {
  private static final int MIN_CAPACITY = 16;

  private static final int MAX_CAPACITY = 1 << 30;

  /**
   * The longest a new key's probe may run before the index grows although under three quarters
   * full. Rows put in the slot order of a larger table hashed alike (a snapshot in the server's
   * image order, before the index has the image's capacity) come to each slot of this one once per
   * turn round it, each turn's keys behind the last turn's: above half full the runs then join into
   * one that every put walks. At most three quarters full with keys in any other order, a run this
   * long is not to be expected: by the Poisson estimate, a run's odds fall by a factor of about
   * e^-0.038 a slot at that load, e^-38 for this one.
   */
  static final int LONGEST_PROBE = 1024;

  /** The arrays of one capacity; replaced as a whole on a resize. */
  private static final class Slots {
    /** The key of a slot whose key is a {@code Long}. */
    final long[] longs;

    /** Null while every key is a {@code Long}; else per slot the key object, or null. */
    final Object[] keys;

    /** The row of each slot; null marks an empty slot. */
    final Object[] values;

    Slots(long[] longs, Object[] keys, Object[] values) {
      this.longs = longs;
      this.keys = keys;
      this.values = values;
    }
  }

  private volatile Slots slots;
  private int size;

  private RowIndex(Slots slots, int size) {
    this.slots = slots;
    this.size = size;
  }

  /** An index sized for {@code expected} rows without growing. */
  public RowIndex(int expected) {
    int capacity = capacityFor(expected);
    slots = new Slots(new long[capacity], null, new Object[capacity]);
  }

  /**
   * An index for a snapshot announcing {@code announcedRows} rows before any of them has been
   * priced against the heap: sized for at most a million of them, the announced count not trusted
   * with the heap yet, then {@link #reserve}d for all of them once the first rows fit.
   */
  public static <V> RowIndex<V> forSnapshot(long announcedRows) {
    return new RowIndex<>((int) Math.min(1 << 20, Math.max(0, announcedRows)));
  }

  /**
   * The slots for {@code rows} at most three quarters full: the server's image ({@code RowTable})
   * sizes its table the same way, so that a snapshot of as many rows, sent in the image's slot
   * order, fills an index of this capacity slot after slot.
   */
  static int capacityFor(long rows) {
    int capacity = MIN_CAPACITY;
    while (capacity * 3L / 4 < rows && capacity < MAX_CAPACITY) {
      capacity <<= 1;
    }
    return capacity;
  }

  /**
   * Grows the index to hold {@code rows} without growing again (it never shrinks here): for rows
   * about to arrive whose number is known. Writer only.
   */
  public void reserve(long rows) {
    int capacity = capacityFor(rows);
    if (capacity > slots.values.length) {
      resize(capacity);
    }
  }

  public int size() {
    return size;
  }

  /** The row of {@code key} (normalized, not null), or null. */
  @SuppressWarnings("unchecked")
  public V get(Object key) {
    Slots s = slots;
    Object[] values = s.values;
    int mask = values.length - 1;
    if (key instanceof Long boxed) {
      long k = boxed;
      Object[] keys = s.keys;
      long[] longs = s.longs;
      for (int n = 0, i = hash(k) & mask; n <= mask; n++, i = (i + 1) & mask) {
        Object v = values[i];
        if (v == null) {
          return null;
        }
        if (longs[i] == k && (keys == null || keys[i] == null)) {
          return (V) v;
        }
      }
      return null;
    }
    Object[] keys = s.keys;
    if (keys == null) {
      return null;
    }
    for (int n = 0, i = hash(key) & mask; n <= mask; n++, i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (key.equals(keys[i])) {
        return (V) v;
      }
    }
    return null;
  }

  /** Puts the row of {@code key}; returns the row it replaced, or null. Writer only. */
  @SuppressWarnings("unchecked")
  public V put(Object key, V value) {
    Slots s = slots;
    if (!(key instanceof Long) && s.keys == null) {
      s = new Slots(s.longs, new Object[s.values.length], s.values);
      slots = s;
    }
    int i = find(s, key);
    Object old = s.values[i];
    if (old == null) {
      if (key instanceof Long l) {
        s.longs[i] = l;
      } else {
        s.keys[i] = key;
      }
      s.values[i] = value;
      int mask = s.values.length - 1;
      boolean longRun = ((i - hash(key)) & mask) > LONGEST_PROBE && size >= s.values.length / 4;
      if (++size > s.values.length * 3L / 4 || longRun) {
        if (s.values.length == MAX_CAPACITY) {
          throw new IllegalStateException(
              "one mirror holds at most " + MAX_CAPACITY / 4 * 3 + " rows");
        }
        resize(s.values.length << 1);
      }
      return null;
    }
    s.values[i] = value;
    return (V) old;
  }

  /** Removes the row of {@code key}; returns it, or null. Writer only. */
  @SuppressWarnings("unchecked")
  public V remove(Object key) {
    Slots s = slots;
    int i = find(s, key);
    Object old = s.values[i];
    if (old != null) {
      shiftBack(s, i);
      size--;
    }
    return (V) old;
  }

  /** Calls {@code action} with every key (boxed) and row. Writer, or under the read lock. */
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<Object, V> action) {
    Slots s = slots;
    for (int i = 0; i < s.values.length; i++) {
      Object v = s.values[i];
      if (v != null) {
        action.accept(keyAt(s, i), (V) v);
      }
    }
  }

  /**
   * A new index of the same keys, each row replaced by what {@code f} makes of its key (boxed) and
   * row, or left out when that is null: built slot for slot, without hashing or probing again (a
   * snapshot's rows becoming a mirror's), the keys copied. This index is not changed. Writer, or
   * under the read lock.
   */
  public <W> RowIndex<W> mapped(BiFunction<Object, ? super V, ? extends W> f) {
    Slots s = slots;
    Object[] values = new Object[s.values.length];
    List<Object> left = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      @SuppressWarnings("unchecked")
      V v = (V) s.values[i];
      if (v != null) {
        Object key = keyAt(s, i);
        W w = f.apply(key, v);
        if (w != null) {
          values[i] = w;
        } else {
          values[i] = v; // held until removed below, so that no probe run is cut short meanwhile
          left.add(key);
        }
      }
    }
    RowIndex<W> out =
        new RowIndex<>(
            new Slots(s.longs.clone(), s.keys == null ? null : s.keys.clone(), values), size);
    left.forEach(out::remove);
    return out;
  }

  /**
   * Every key (boxed) and row, in slot order; the index must not change while the iterator is in
   * use. Writer, or under the read lock.
   */
  public Iterator<Map.Entry<Object, V>> entries() {
    Slots s = slots;
    return new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        int i = from;
        while (i < s.values.length && s.values[i] == null) {
          i++;
        }
        return i;
      }

      @Override
      public boolean hasNext() {
        return next < s.values.length;
      }

      @Override
      @SuppressWarnings("unchecked")
      public Map.Entry<Object, V> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        int i = next;
        next = advance(i + 1);
        return new AbstractMap.SimpleImmutableEntry<>(keyAt(s, i), (V) s.values[i]);
      }
    };
  }

  /** The slots of the index (tests). */
  int capacity() {
    return slots.values.length;
  }

  /** The longest way any key lies from its home slot (tests). */
  int longestProbe() {
    Slots s = slots;
    int mask = s.values.length - 1;
    int longest = 0;
    for (int i = 0; i < s.values.length; i++) {
      if (s.values[i] != null) {
        longest = Math.max(longest, (i - hashAt(s, i)) & mask);
      }
    }
    return longest;
  }

  /** The slot of {@code key}, or the empty slot where it would go. */
  private static int find(Slots s, Object key) {
    int mask = s.values.length - 1;
    int i = hash(key) & mask;
    while (s.values[i] != null && !sameKey(s, i, key)) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private static boolean sameKey(Slots s, int i, Object key) {
    Object stored = s.keys == null ? null : s.keys[i];
    if (key instanceof Long l) {
      return stored == null && s.longs[i] == l;
    }
    return key.equals(stored);
  }

  private static Object keyAt(Slots s, int i) {
    Object k = s.keys == null ? null : s.keys[i];
    return k != null ? k : (Object) s.longs[i];
  }

  private static int hashAt(Slots s, int i) {
    Object k = s.keys == null ? null : s.keys[i];
    return k != null ? mix(k.hashCode()) : hash(s.longs[i]);
  }

  private static int hash(Object key) {
    return key instanceof Long l ? hash(l.longValue()) : mix(key.hashCode());
  }

  /**
   * The server's image's hash of the same key ({@link KeyHash#ofIntegerKey}): a snapshot comes in
   * the image's slot order, so that its rows fill this index's slots in order too, each put
   * touching the cache lines the previous one did instead of two lines at random.
   */
  static int hash(long key) {
    return KeyHash.ofIntegerKey(key);
  }

  /** Murmur3's finalizer: consecutive keys spread over a power-of-two table. */
  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  /** Moves later slots of the probe run into the gap, so lookups never stop early. */
  private static void shiftBack(Slots s, int gap) {
    int mask = s.values.length - 1;
    int i = gap;
    while (true) {
      i = (i + 1) & mask;
      if (s.values[i] == null) {
        clear(s, gap);
        return;
      }
      int home = hashAt(s, i) & mask;
      // the slot at i may move to gap when its home is not in (gap, i], cyclically
      boolean movable = gap <= i ? (home <= gap || home > i) : (home <= gap && home > i);
      if (movable) {
        s.longs[gap] = s.longs[i];
        if (s.keys != null) {
          s.keys[gap] = s.keys[i];
        }
        s.values[gap] = s.values[i];
        gap = i;
      }
    }
  }

  private static void clear(Slots s, int i) {
    s.values[i] = null;
    s.longs[i] = 0;
    if (s.keys != null) {
      s.keys[i] = null;
    }
  }

  private void resize(int capacity) {
    Slots old = slots;
    Slots s =
        new Slots(
            new long[capacity],
            old.keys == null ? null : new Object[capacity],
            new Object[capacity]);
    int mask = capacity - 1;
    for (int j = 0; j < old.values.length; j++) {
      if (old.values[j] != null) {
        int i = hashAt(old, j) & mask;
        while (s.values[i] != null) {
          i = (i + 1) & mask;
        }
        s.longs[i] = old.longs[j];
        if (s.keys != null) {
          s.keys[i] = old.keys[j];
        }
        s.values[i] = old.values[j];
      }
    }
    slots = s;
  }
}
