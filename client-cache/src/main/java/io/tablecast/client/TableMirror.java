package io.tablecast.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A live, in-memory copy of one cached table, kept up to date by the server's change stream.
 *
 * <p>Keys are normalized: an integral number is a {@code Long} (a {@code BigInteger} outside the
 * long range), so {@code get(42)}, {@code get(42L)} and the JSON {@code 42} find the same row; text
 * is a {@code String}; a composite key is a {@code List} of parts in primary-key column order. A
 * key part may also be the Java value JDBC reads from its column ({@code LocalDateTime}, {@code
 * Instant}, {@code BigDecimal} of any scale, {@code byte[]}, ...): a lookup its plain form misses
 * tries the forms the column's rows carry (docs/CLIENT.md, Keys). Every transaction is applied
 * atomically: {@link #get}, {@link #rows()}, {@link #size()} and {@link #copyToMap()} never observe
 * half of one. Reads are wait-free in the common case and never block on the network. Thread-safe.
 *
 * @param <V> the row type: a record or POJO mapped by Jackson, or {@code Map<String, Object>}
 */
public interface TableMirror<V> {

  /** The qualified table name ({@code schema.table}). */
  String table();

  /**
   * Waits until the first snapshot is applied.
   *
   * @return true when ready, false when {@code timeout} elapsed first
   * @throws TablecastException if the server refused the subscription (unknown table, access
   *     denied, failed authentication) or the client is closed; carries the server's message
   */
  boolean awaitReady(Duration timeout) throws InterruptedException;

  /** True once the first snapshot is applied (stays true across reconnects, false after close). */
  boolean isReady();

  /**
   * The row with a single-column key (or a composite key given as a {@code List}), or null.
   *
   * @throws IllegalArgumentException when no row is found and none can have {@code key}: the wrong
   *     number of parts, or a part of another kind than its column's (the text {@code "42"} for an
   *     integer column); the message says what to give
   */
  V get(Object key);

  /**
   * The row with a composite key given part by part in primary-key column order, or null.
   *
   * @throws IllegalArgumentException as {@link #get(Object)}
   */
  V get(Object first, Object... rest);

  /** The number of rows. */
  int size();

  /** A consistent copy of all rows, in no particular order. */
  List<V> rows();

  /** A stream over a consistent copy of all rows. */
  Stream<V> stream();

  /** Calls {@code action} for every row of a consistent copy. */
  void forEach(Consumer<? super V> action);

  /**
   * A copy of all rows keyed by normalized key, consistent (whole transactions) and modifiable;
   * later changes of the mirror do not show in it. Unlike a cache's live {@code asMap()} view, a
   * copy is what keeps several reads of it within one transaction boundary.
   */
  Map<Object, V> copyToMap();

  /** The primary-key column names, empty before the first snapshot. */
  List<String> primaryKey();

  /**
   * The column layout, empty before the first snapshot; it changes when the table's columns change
   * while it is served ({@code ALTER TABLE}), before the rows do.
   */
  List<Column> columns();

  /** The stream position of the last change applied, -1 before the first snapshot. */
  long position();

  /**
   * How long the last transaction applied to this mirror took from its write in the database to
   * this mirror, in milliseconds; -1 before the first change after the snapshot. Measured against
   * the database's clock (the capture time of the outbox row), so a difference between the two
   * clocks counts in it.
   */
  long lagMillis();

  /**
   * Rows received of the latest snapshot and rows the server announced for it, for a progress
   * display while a large table arrives; {@link SnapshotProgress#NONE} before the first snapshot.
   */
  SnapshotProgress snapshotProgress();

  /**
   * Why this mirror may differ from its table, as the server said (for example a changed row the
   * server could not read: the mirror keeps that row as it was), or null while it follows its
   * table. The server says when it follows it again.
   */
  String staleReason();

  /** Registers a listener told when {@link #staleReason()} changes. */
  Subscription addStaleListener(StaleListener listener);

  /**
   * The secondary index {@code name}, declared with {@link TablecastClient#mirror(String, Class,
   * List)}.
   *
   * @throws IllegalArgumentException when the mirror has no index of that name (names those it has)
   */
  MirrorIndex<V> index(String name);

  /** A new query over this mirror's indexes: intersected lookups, then filters. */
  MirrorQuery<V> query();

  /**
   * Registers a listener for changes applied from now on. The initial snapshot fires no events; a
   * re-snapshot after a failed resume fires only the real differences.
   */
  Subscription addListener(ChangeListener<V> listener);

  /**
   * Registers a listener told once per batch applied from now on, with the batch's changes to this
   * table at once, after the change listeners have heard them. The initial snapshot fires none; a
   * re-snapshot after a failed resume gives its real differences as one batch.
   */
  Subscription addBatchListener(BatchListener<V> listener);
}
