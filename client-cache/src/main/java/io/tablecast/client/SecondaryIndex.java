package io.tablecast.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One secondary index's entries: per normalized key, the primary keys of its rows (one key held as
 * itself, several in a {@link Many}); rows are read from the mirror's {@link
 * io.tablecast.client.internal.RowIndex} by those keys, so an index never holds a row value of its
 * own. A hash index keeps a {@link HashMap}, a sorted one a {@link TreeMap} in {@link
 * IndexKeys#ORDER}; null keys are kept apart in both. Changed by the mirror's writer under {@link
 * MirrorRows}'s write lock, read under its read lock.
 *
 * @param <V> the row type
 */
final class SecondaryIndex<V> {

  /** The primary keys of several rows with one index key, in no particular order. */
  private static final class Many {
    final HashSet<Object> keys = new HashSet<>(4);
  }

  final IndexDefinition<V> definition;
  private final Map<Object, Object> entries;
  private Object nulls;

  /** Why the index stopped following its rows (its key function threw), or null. */
  volatile String broken;

  /** Which of its columns left the table (it still follows its rows), or null. */
  volatile String columnGone;

  /**
   * The columns of an index by column names, one per part, as the table had them when the index was
   * built ({@link IndexValues}: rows and lookups alike); null for an index by a function, or when
   * they were not known.
   */
  private final List<Column> columns;

  SecondaryIndex(IndexDefinition<V> definition, List<Column> columns) {
    this.definition = definition;
    this.columns = columns;
    this.entries = definition.isSorted() ? new TreeMap<>(IndexKeys.ORDER) : new HashMap<>();
  }

  /** Why lookups fail, or null when they work. */
  String unavailable() {
    String b = broken;
    return b != null ? b : columnGone;
  }

  String name() {
    return definition.name();
  }

  /** The normalized index key of {@code row}; throws what the key function throws. */
  Object keyOf(V row) {
    return keyFor(definition.keyOf(row));
  }

  /** A key asked for, normalized as the keys of rows are. */
  Object keyFor(Object key) {
    return IndexKeys.normalize(IndexValues.byColumns(key, columns));
  }

  /**
   * Adds the row with primary key {@code pk} under {@code key}; returns the primary keys now under
   * a key of a unique index that holds several (a clash), else null.
   */
  List<Object> add(Object key, Object pk) {
    Object held = key == null ? nulls : entries.get(key);
    Object now;
    if (held == null) {
      now = pk;
    } else if (held instanceof Many many) {
      many.keys.add(pk);
      now = many;
    } else if (held.equals(pk)) {
      now = held;
    } else {
      Many many = new Many();
      many.keys.add(held);
      many.keys.add(pk);
      now = many;
    }
    if (key == null) {
      nulls = now;
    } else {
      entries.put(key, now);
    }
    if (now instanceof Many many && definition.isUnique() && !IndexKeys.hasNull(key)) {
      return List.copyOf(many.keys);
    }
    return null;
  }

  /** Removes the row with primary key {@code pk} from under {@code key}. */
  void remove(Object key, Object pk) {
    Object held = key == null ? nulls : entries.get(key);
    Object now = held;
    if (held instanceof Many many) {
      many.keys.remove(pk);
      if (many.keys.size() == 1) {
        now = many.keys.iterator().next();
      }
    } else if (held != null && held.equals(pk)) {
      now = null;
    }
    if (now == held) {
      return;
    }
    if (key == null) {
      nulls = now;
    } else if (now == null) {
      entries.remove(key);
    } else {
      entries.put(key, now);
    }
  }

  /** The primary keys under {@code key} (normalized). */
  List<Object> keysOf(Object key) {
    List<Object> out = new ArrayList<>();
    addTo(key == null ? nulls : entries.get(key), out::add);
    return out;
  }

  /** The primary keys under keys from {@code from} to {@code to} (null: unbounded), in order. */
  List<Object> keysBetween(Object from, boolean fromInclusive, Object to, boolean toInclusive) {
    NavigableMap<Object, Object> sorted = (NavigableMap<Object, Object>) entries;
    NavigableMap<Object, Object> range;
    if (from != null && to != null) {
      if (IndexKeys.ORDER.compare(from, to) > 0) {
        return List.of();
      }
      range = sorted.subMap(from, fromInclusive, to, toInclusive);
    } else if (from != null) {
      range = sorted.tailMap(from, fromInclusive);
    } else if (to != null) {
      range = sorted.headMap(to, toInclusive);
    } else {
      range = sorted;
    }
    List<Object> out = new ArrayList<>();
    for (Object held : range.values()) {
      addTo(held, out::add);
    }
    return out;
  }

  /** The number of distinct keys (null counted once when a row has it). */
  int keyCount() {
    return entries.size() + (nulls == null ? 0 : 1);
  }

  private static void addTo(Object held, Consumer<Object> out) {
    if (held instanceof Many many) {
      many.keys.forEach(out);
    } else if (held != null) {
      out.accept(held);
    }
  }

  /** Every primary key of every entry, for checks. */
  Collection<Object> allKeys() {
    List<Object> out = new ArrayList<>();
    addTo(nulls, out::add);
    for (Object held : entries.values()) {
      addTo(held, out::add);
    }
    return out;
  }
}
