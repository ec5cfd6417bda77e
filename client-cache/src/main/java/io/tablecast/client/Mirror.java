package io.tablecast.client;

import io.tablecast.client.internal.MirrorSink;
import io.tablecast.client.internal.RowKeys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A {@link TableMirror}: its rows ({@link MirrorRows}), layout, readiness and staleness, read from
 * any thread. Its {@link MirrorWriter} applies what the session receives, on the connection's event
 * loop.
 *
 * @param <V> the row type
 */
final class Mirror<V> implements TableMirror<V> {

  private final String table;
  final MirrorRows<V> rows;
  private final IndexReads<V> indexReads;
  final MirrorListeners<V> listeners = new MirrorListeners<>();
  final MirrorStaleness staleness;
  final MirrorReadiness readiness;
  volatile List<String> primaryKey = List.of();
  volatile List<Column> columns = List.of();
  volatile SnapshotProgress snapshotProgress = SnapshotProgress.NONE;

  /** See {@link #lagMillis()}; written by the connection's event loop. */
  volatile long lagMillis = -1;

  private final MirrorWriter<V> writer;

  /** The rows and columns it holds of its table; null for all. */
  final MirrorShape shape;

  /**
   * @param mapping maps a row image to the row type (throws when it cannot) and reads rows back
   * @param rowType the row type, named to {@link ErrorListener}s when a row cannot be mapped
   * @param saved where the mirror is saved for a warm restart; null when it is not
   * @param shape the rows and columns it holds of its table; null for all
   */
  Mirror(
      String table,
      Class<?> rowType,
      RowMapping<V> mapping,
      RowFit fit,
      ListenerDispatcher dispatcher,
      ClientListeners clientListeners,
      MirrorPersistence.Place saved,
      MirrorShape shape) {
    this.table = table;
    this.shape = shape;
    this.rows =
        new MirrorRows<>(
            new MirrorIndexes<>(
                table,
                (index, key, pks) -> clientListeners.uniqueIndexClash(table, index, key, pks)));
    this.indexReads = new IndexReads<>(table, rows);
    this.staleness = new MirrorStaleness(table, fit, dispatcher);
    this.readiness = new MirrorReadiness(table);
    MirrorPersistence<V> persistence =
        saved == null
            ? null
            : new MirrorPersistence<>(this, rowType, mapping, fit, clientListeners, saved);
    this.writer =
        new MirrorWriter<>(this, rowType, mapping, fit, dispatcher, clientListeners, persistence);
  }

  /** Reads the mirror's saved rows, when it is saved and has a file, before it is attached. */
  void readSaved() {
    writer.readSaved();
  }

  /** The side of the mirror the session writes to. */
  MirrorSink sink() {
    return writer;
  }

  @Override
  public String table() {
    return table;
  }

  @Override
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    return readiness.await(timeout);
  }

  @Override
  public boolean isReady() {
    return readiness.isReady();
  }

  @Override
  public V get(Object key) {
    List<String> pk = primaryKey;
    Object normalized = RowKeys.fromUser(key, pk.size());
    V row = rows.get(normalized);
    return row != null ? row : inOtherForms(pk, normalized, key);
  }

  @Override
  public V get(Object first, Object... rest) {
    Object normalized = RowKeys.fromUser(first, rest);
    V row = rows.get(normalized);
    if (row != null) {
      return row;
    }
    Object[] given = new Object[rest.length + 1];
    given[0] = first;
    System.arraycopy(rest, 0, given, 1, rest.length);
    return inOtherForms(primaryKey, normalized, given);
  }

  /**
   * The row of a key whose plain form found none, in the forms rows carry of its parts ({@link
   * KeyForms}: a {@code LocalDateTime}, a {@code BigDecimal} of another scale); else null, or a
   * refusal of a key no row can have ({@link KeyMisses}).
   */
  private V inOtherForms(List<String> pk, Object normalized, Object given) {
    List<Column> layout = columns;
    for (Object other : KeyForms.alternatives(pk, layout, given, normalized)) {
      V row = rows.get(other);
      if (row != null) {
        return row;
      }
    }
    KeyMisses.check(table, pk, layout, normalized, given);
    return null;
  }

  @Override
  public int size() {
    return rows.size();
  }

  @Override
  public List<V> rows() {
    return rows.values();
  }

  @Override
  public Stream<V> stream() {
    return rows.values().stream();
  }

  @Override
  public void forEach(Consumer<? super V> action) {
    rows.values().forEach(action);
  }

  @Override
  public Map<Object, V> copyToMap() {
    return rows.copy();
  }

  @Override
  public List<String> primaryKey() {
    return primaryKey;
  }

  @Override
  public List<Column> columns() {
    return columns;
  }

  @Override
  public long position() {
    return rows.position();
  }

  @Override
  public long lagMillis() {
    return lagMillis;
  }

  @Override
  public SnapshotProgress snapshotProgress() {
    return snapshotProgress;
  }

  @Override
  public String staleReason() {
    return staleness.reason();
  }

  @Override
  public Subscription addStaleListener(StaleListener listener) {
    return staleness.addListener(listener);
  }

  @Override
  public Subscription addListener(ChangeListener<V> listener) {
    // between two batches: it hears every change applied from now on (MirrorRows.apply)
    return rows.read(() -> listeners.addChangeListener(listener));
  }

  @Override
  public Subscription addBatchListener(BatchListener<V> listener) {
    return rows.read(() -> listeners.addBatchListener(listener));
  }

  /**
   * Declares {@code definitions} not declared yet (each filled from the rows held); throws when one
   * has the name of an index declared differently.
   *
   * @return this mirror
   */
  Mirror<V> declare(List<IndexDefinition<V>> definitions) {
    for (IndexDefinition<V> d : definitions) {
      Objects.requireNonNull(d, "index definition");
      synchronized (rows.indexes) {
        SecondaryIndex<V> held = rows.indexes.named(d.name());
        if (held == null) {
          rows.addIndex(d);
        } else if (!held.definition.sameAs(d)) {
          throw new IllegalArgumentException(
              "the mirror of "
                  + table
                  + " already has an index named "
                  + d.name()
                  + ": "
                  + held.definition
                  + ", not "
                  + d);
        }
      }
    }
    return this;
  }

  @Override
  public MirrorIndex<V> index(String name) {
    return indexReads.index(name);
  }

  @Override
  public MirrorQuery<V> query() {
    return indexReads.query();
  }

  /** The client closed: not ready any more, {@link #awaitReady} throws. */
  void close() {
    readiness.close();
  }

  @Override
  public String toString() {
    return "TableMirror["
        + table
        + ", rows="
        + rows.size()
        + ", ready="
        + readiness.wasReady()
        + ", position="
        + rows.position()
        + "]";
  }
}
