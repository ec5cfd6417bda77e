package io.tablecast.client;

import io.tablecast.client.internal.RowIndex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secondary indexes of one mirror, kept by {@link MirrorRows} with its rows: every change of a
 * row moves its primary key between index keys in the same write-locked step that changes the row,
 * and a snapshot's rows come with indexes built for them and swapped in with them. Also says when
 * an index cannot be used: a column it reads left the table (it still follows its rows, and is
 * usable again when the column is back), or its key function threw on a row (it stops following
 * them until the next snapshot rebuilds it). Changed under the write lock only; {@link #all} is
 * read under the read lock.
 *
 * @param <V> the row type
 */
final class MirrorIndexes<V> {
  private static final Logger log = LoggerFactory.getLogger(MirrorIndexes.class);

  /** Told of two or more rows under one key of a unique index. */
  interface Clashes {
    void clash(String index, Object key, List<Object> primaryKeys);
  }

  private final String table;
  private final Clashes clashes;

  /** Copy on write: a snapshot's rebuild or a new index replaces the list. */
  private volatile List<SecondaryIndex<V>> all = List.of();

  /** The table's column names, null before the first schema. */
  private volatile Set<String> columns;

  /** The table's columns by name, empty before the first schema. */
  private volatile Map<String, Column> byName = Map.of();

  MirrorIndexes(String table, Clashes clashes) {
    this.table = table;
    this.clashes = clashes;
  }

  List<SecondaryIndex<V>> all() {
    return all;
  }

  boolean isEmpty() {
    return all.isEmpty();
  }

  /** The index named {@code name}, or null. */
  SecondaryIndex<V> named(String name) {
    for (SecondaryIndex<V> i : all) {
      if (i.name().equals(name)) {
        return i;
      }
    }
    return null;
  }

  List<String> names() {
    List<String> out = new ArrayList<>();
    for (SecondaryIndex<V> i : all) {
      out.add(i.name());
    }
    return out;
  }

  /** A new index filled from {@code rows}; the caller holds the write lock. */
  void add(IndexDefinition<V> definition, RowIndex<V> rows) {
    List<SecondaryIndex<V>> next = new ArrayList<>(all);
    next.add(fill(index(definition), rows));
    all = List.copyOf(next);
  }

  /** Indexes of every definition held, filled from {@code rows} (no reader has seen them). */
  List<SecondaryIndex<V>> buildFor(RowIndex<V> rows) {
    List<SecondaryIndex<V>> out = new ArrayList<>();
    for (SecondaryIndex<V> i : all) {
      out.add(fill(index(i.definition), rows));
    }
    return out;
  }

  /**
   * Swaps in {@code built} (from {@link #buildFor}); an index declared since is built here. The
   * caller holds the write lock.
   */
  void install(List<SecondaryIndex<V>> built, RowIndex<V> rows) {
    List<SecondaryIndex<V>> next = new ArrayList<>();
    for (SecondaryIndex<V> i : all) {
      SecondaryIndex<V> fresh = null;
      for (SecondaryIndex<V> b : built) {
        if (b.definition == i.definition) {
          fresh = b;
        }
      }
      next.add(fresh != null ? fresh : fill(index(i.definition), rows));
    }
    all = List.copyOf(next);
    checkColumns();
  }

  /** A new, empty index of {@code definition}, with its columns as known now. */
  private SecondaryIndex<V> index(IndexDefinition<V> definition) {
    if (!definition.isByColumns()) {
      return new SecondaryIndex<>(definition, null);
    }
    List<Column> of = new ArrayList<>();
    for (String c : definition.indexedColumns()) {
      of.add(byName.get(c));
    }
    return new SecondaryIndex<>(definition, byName.isEmpty() ? null : of);
  }

  private SecondaryIndex<V> fill(SecondaryIndex<V> index, RowIndex<V> rows) {
    Map<Object, List<Object>> clashed = new LinkedHashMap<>();
    rows.forEach(
        (pk, row) -> {
          if (index.broken == null) {
            List<Object> c = put(index, pk, row);
            if (c != null) {
              clashed.put(index.keyOf(row), c);
            }
          }
        });
    clashed.forEach((key, pks) -> tellClash(index, key, pks));
    index.columnGone = columnGone(index);
    return index;
  }

  /** The row {@code row} of {@code pk} joined; the caller holds the write lock. */
  void added(Object pk, V row) {
    for (SecondaryIndex<V> i : all) {
      if (i.broken == null) {
        List<Object> c = put(i, pk, row);
        if (c != null) {
          tellClash(i, i.keyOf(row), c);
        }
      }
    }
  }

  /** The row {@code row} of {@code pk} left (or is being replaced); the caller holds the lock. */
  void removed(Object pk, V row) {
    for (SecondaryIndex<V> i : all) {
      if (i.broken == null) {
        try {
          i.remove(i.keyOf(row), pk);
        } catch (RuntimeException e) {
          broken(i, pk, e);
        }
      }
    }
  }

  /** Adds, or marks the index unavailable when its key function throws; returns a clash. */
  private List<Object> put(SecondaryIndex<V> i, Object pk, V row) {
    try {
      return i.add(i.keyOf(row), pk);
    } catch (RuntimeException e) {
      broken(i, pk, e);
      return null;
    }
  }

  private void broken(SecondaryIndex<V> i, Object pk, RuntimeException e) {
    i.broken =
        "the key function of index "
            + i.name()
            + " of "
            + table
            + " threw on the row with key "
            + pk
            + ": "
            + e
            + "; the index is unavailable until the table's next snapshot";
    log.error("{}", i.broken, e);
  }

  private void tellClash(SecondaryIndex<V> i, Object key, List<Object> pks) {
    log.warn(
        "unique index {} of {} holds {} rows for the key {}: primary keys {}",
        i.name(),
        table,
        pks.size(),
        key,
        pks);
    clashes.clash(i.name(), key, pks);
  }

  /**
   * The table's columns are now {@code now}: indexes on a column gone become unavailable; indexes
   * built from now on read values by the columns' kinds.
   */
  void columns(List<Column> now) {
    Map<String, Column> named = new java.util.HashMap<>();
    for (Column c : now) {
      named.put(c.name(), c);
    }
    byName = Map.copyOf(named);
    columns = Set.copyOf(named.keySet());
    checkColumns();
  }

  private void checkColumns() {
    for (SecondaryIndex<V> i : all) {
      i.columnGone = columnGone(i);
    }
  }

  private String columnGone(SecondaryIndex<V> i) {
    Set<String> names = columns;
    if (names == null) {
      return null;
    }
    for (String c : i.definition.indexedColumns()) {
      if (!names.contains(c)) {
        return "index "
            + i.name()
            + " of "
            + table
            + " is unavailable: "
            + c
            + " is not a column of "
            + table
            + " any more (dropped or renamed); it is usable again when the column is back";
      }
    }
    return null;
  }
}
