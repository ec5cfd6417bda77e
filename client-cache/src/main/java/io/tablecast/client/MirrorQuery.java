package io.tablecast.client;

import java.util.List;
import java.util.function.Predicate;

/**
 * A query over a {@link TableMirror}'s secondary indexes, from {@link TableMirror#query()}: the
 * rows that satisfy every {@code where} (an intersection of index lookups, all read at one
 * transaction boundary), then every {@link #filter}. Rows come in the order of the first {@code
 * where} (key order for a range). A builder: not thread-safe, each call returns this query.
 *
 * @param <V> the row type
 */
public interface MirrorQuery<V> {

  /**
   * Only rows whose key in index {@code index} equals {@code key} (see {@link MirrorIndex#get}).
   */
  MirrorQuery<V> where(String index, Object key);

  /**
   * Only rows whose key in sorted index {@code index} is in the range (see {@link
   * MirrorIndex#range}).
   */
  MirrorQuery<V> whereRange(
      String index, Object from, boolean fromInclusive, Object to, boolean toInclusive);

  /** Only rows {@code predicate} accepts; run on the caller's thread, outside the mirror's lock. */
  MirrorQuery<V> filter(Predicate<? super V> predicate);

  /**
   * The rows, an unmodifiable list; with no {@code where}, every row of the mirror.
   *
   * @throws IllegalArgumentException when an index named is not declared
   * @throws UnsupportedOperationException for a range on a hash index
   * @throws TablecastException when an index used is unavailable
   */
  List<V> list();
}
