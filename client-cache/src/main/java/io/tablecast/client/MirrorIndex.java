package io.tablecast.client;

import java.util.List;

/**
 * A secondary index of a {@link TableMirror}, from {@link TableMirror#index(String)}. Each call
 * reads the index and the rows at one transaction boundary: a row is found under a key exactly when
 * the mirror's row has that key. Results are unmodifiable lists of the mirror's row objects, never
 * views of the index. Thread-safe.
 *
 * <p>Keys are normalized like primary keys: {@code 42} and {@code 42L} are the same key; a key of
 * several columns is a {@code List} of its parts in declaration order.
 *
 * @param <V> the row type
 */
public interface MirrorIndex<V> {

  /** The index's name. */
  String name();

  /** The definition it was declared with. */
  IndexDefinition<V> definition();

  /**
   * The rows whose key equals {@code key} (null: the rows whose key is null), in no particular
   * order; empty when none.
   *
   * @throws TablecastException when the index is unavailable ({@link #unavailableReason()})
   */
  List<V> get(Object key);

  /**
   * The one row with {@code key}, or null when none.
   *
   * @throws TablecastException when several rows have it (a unique index whose table holds
   *     duplicates: {@link #get} returns them all), or when the index is unavailable
   */
  V getOne(Object key);

  /**
   * The rows whose key lies between {@code from} and {@code to}, in key order (rows of one key in
   * no particular order). A null bound is no bound; rows with a null key are never in a range.
   *
   * @throws UnsupportedOperationException on a hash index
   * @throws TablecastException when the index is unavailable
   */
  List<V> range(Object from, boolean fromInclusive, Object to, boolean toInclusive);

  /**
   * Every row with a non-null key, in key order.
   *
   * @throws UnsupportedOperationException on a hash index
   * @throws TablecastException when the index is unavailable
   */
  List<V> ordered();

  /**
   * Why lookups fail, or null when they work: a column of the index left the table ({@code ALTER
   * TABLE} dropped or renamed it; usable again when it is back), or its key function threw on a row
   * (usable again after the table's next snapshot). The reason names the index and the column.
   */
  String unavailableReason();
}
