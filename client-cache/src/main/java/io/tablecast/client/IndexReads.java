package io.tablecast.client;

import io.tablecast.client.internal.RowIndex;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The read side of a mirror's secondary indexes: {@link MirrorIndex} handles and {@link
 * MirrorQuery}s, each call one read of {@link MirrorRows} under its read lock (index and rows at
 * one transaction boundary), the rows copied into a new unmodifiable list.
 *
 * @param <V> the row type
 */
final class IndexReads<V> {
  private final String table;
  private final MirrorRows<V> rows;

  IndexReads(String table, MirrorRows<V> rows) {
    this.table = table;
    this.rows = rows;
  }

  /** The handle of index {@code name}; throws when no such index is declared. */
  MirrorIndex<V> index(String name) {
    return new Handle(require(name).definition);
  }

  MirrorQuery<V> query() {
    return new Query();
  }

  private SecondaryIndex<V> require(String name) {
    SecondaryIndex<V> i = rows.indexes.named(name);
    if (i == null) {
      throw new IllegalArgumentException(
          "the mirror of "
              + table
              + " has no index named "
              + name
              + "; its indexes: "
              + rows.indexes.names());
    }
    return i;
  }

  /** Index {@code name} as it is now (a snapshot replaces it), usable; under the read lock. */
  private SecondaryIndex<V> usable(String name, boolean needsOrder) {
    SecondaryIndex<V> i = require(name);
    if (needsOrder && !i.definition.isSorted()) {
      throw new UnsupportedOperationException(
          "index "
              + name
              + " of "
              + table
              + " is a hash index: ranges and order need IndexDefinition.sorted");
    }
    String why = i.unavailable();
    if (why != null) {
      throw new TablecastException(null, why);
    }
    return i;
  }

  private List<V> rowsOf(List<Object> keys) {
    RowIndex<V> current = rows.current();
    List<V> out = new ArrayList<>(keys.size());
    for (Object pk : keys) {
      V row = current.get(pk);
      if (row != null) {
        out.add(row);
      }
    }
    return out;
  }

  private final class Handle implements MirrorIndex<V> {
    private final IndexDefinition<V> definition;

    Handle(IndexDefinition<V> definition) {
      this.definition = definition;
    }

    @Override
    public String name() {
      return definition.name();
    }

    @Override
    public IndexDefinition<V> definition() {
      return definition;
    }

    @Override
    public List<V> get(Object key) {
      return Collections.unmodifiableList(
          rows.read(
              () -> {
                SecondaryIndex<V> i = usable(name(), false);
                return rowsOf(i.keysOf(i.keyFor(key)));
              }));
    }

    @Override
    public V getOne(Object key) {
      List<V> found = get(key);
      if (found.size() > 1) {
        throw new TablecastException(
            null,
            (definition.isUnique() ? "unique index " : "index ")
                + name()
                + " of "
                + table
                + " holds "
                + found.size()
                + " rows for the key "
                + key
                + (definition.isUnique()
                    ? ": the table has rows the index expected to be unique; get() returns them all"
                    : "; get() returns them all"));
      }
      return found.isEmpty() ? null : found.get(0);
    }

    @Override
    public List<V> range(Object from, boolean fromInclusive, Object to, boolean toInclusive) {
      return Collections.unmodifiableList(
          rows.read(
              () -> {
                SecondaryIndex<V> i = usable(name(), true);
                Object f = i.keyFor(from);
                return rowsOf(i.keysBetween(f, fromInclusive, i.keyFor(to), toInclusive));
              }));
    }

    @Override
    public List<V> ordered() {
      return range(null, true, null, true);
    }

    @Override
    public String unavailableReason() {
      return require(name()).unavailable();
    }

    @Override
    public String toString() {
      return "MirrorIndex[" + table + ", " + definition + "]";
    }
  }

  /** One condition of a query: a key, or a range, as given (normalized by the index). */
  private record Condition(
      String index, boolean range, Object key, Object to, boolean fromIn, boolean toIn) {
    List<Object> keys(SecondaryIndex<?> i) {
      Object k = i.keyFor(key);
      return range ? i.keysBetween(k, fromIn, i.keyFor(to), toIn) : i.keysOf(k);
    }
  }

  private final class Query implements MirrorQuery<V> {
    private final List<Condition> conditions = new ArrayList<>();
    private final List<Predicate<? super V>> filters = new ArrayList<>();

    @Override
    public MirrorQuery<V> where(String index, Object key) {
      require(index);
      conditions.add(new Condition(index, false, key, null, true, true));
      return this;
    }

    @Override
    public MirrorQuery<V> whereRange(
        String index, Object from, boolean fromInclusive, Object to, boolean toInclusive) {
      require(index);
      conditions.add(new Condition(index, true, from, to, fromInclusive, toInclusive));
      return this;
    }

    @Override
    public MirrorQuery<V> filter(Predicate<? super V> predicate) {
      if (predicate == null) {
        throw new IllegalArgumentException("filter predicate must not be null");
      }
      filters.add(predicate);
      return this;
    }

    @Override
    public List<V> list() {
      List<V> found = rows.read(this::matching);
      List<V> out = new ArrayList<>(found.size());
      for (V row : found) {
        if (accepted(row)) {
          out.add(row);
        }
      }
      return Collections.unmodifiableList(out);
    }

    private boolean accepted(V row) {
      for (Predicate<? super V> f : filters) {
        if (!f.test(row)) {
          return false;
        }
      }
      return true;
    }

    /** The rows of every condition, under the read lock. */
    private List<V> matching() {
      if (conditions.isEmpty()) {
        List<V> all = new ArrayList<>(rows.current().size());
        rows.current().forEach((k, r) -> all.add(r));
        return all;
      }
      List<List<Object>> keys = new ArrayList<>();
      for (Condition c : conditions) {
        keys.add(c.keys(usable(c.index(), c.range())));
      }
      List<Object> first = keys.get(0);
      List<Set<Object>> others = new ArrayList<>();
      for (List<Object> k : keys.subList(1, keys.size())) {
        others.add(new HashSet<>(k));
      }
      List<Object> both = new ArrayList<>();
      for (Object pk : first) {
        boolean inAll = true;
        for (Set<Object> o : others) {
          inAll &= o.contains(pk);
        }
        if (inAll) {
          both.add(pk);
        }
      }
      return rowsOf(both);
    }
  }
}
