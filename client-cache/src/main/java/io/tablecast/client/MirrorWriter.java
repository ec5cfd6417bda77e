package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.MirrorRows.Prepared;
import io.tablecast.client.internal.MirrorFile;
import io.tablecast.client.internal.MirrorSink;
import io.tablecast.client.internal.PendingRows;
import io.tablecast.client.internal.RowIndex;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.row.RowForm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side of a {@link Mirror}: turns what the session receives (JSON row images, wire
 * columns) into rows of the mirror's type and applies them, one transaction at a time, then queues
 * the change events for the mirror's listeners. A row that cannot be mapped to the row type is
 * logged, told to the client's {@link ErrorListener}s and counted by the mirror's {@link RowFit}
 * (its stale reason), and the mirror keeps the row's previous value. Runs on the connection's event
 * loop only.
 *
 * @param <V> the row type
 */
final class MirrorWriter<V> implements MirrorSink {
  private static final Logger log = LoggerFactory.getLogger(MirrorWriter.class);

  private final Mirror<V> mirror;
  private final MirrorRows<V> rows;
  private final Class<?> rowType;
  private final RowMapping<V> mapping;
  private final RowFit fit;

  /** The table's columns as the server sent them; event loop only. */
  private List<ColumnInfo> wireColumns = List.of();

  private final ListenerDispatcher dispatcher;
  private final ClientListeners clientListeners;

  /** The table's activity, looked up at the first transaction; event loop only. */
  private TableActivity activity;

  /** Where the mirror is saved for a warm restart; null when it is not. */
  private final MirrorPersistence<V> persistence;

  MirrorWriter(
      Mirror<V> mirror,
      Class<?> rowType,
      RowMapping<V> mapping,
      RowFit fit,
      ListenerDispatcher dispatcher,
      ClientListeners clientListeners,
      MirrorPersistence<V> persistence) {
    this.persistence = persistence;
    this.mirror = mirror;
    this.rows = mirror.rows;
    this.rowType = rowType;
    this.mapping = mapping;
    this.fit = fit;
    this.dispatcher = dispatcher;
    this.clientListeners = clientListeners;
  }

  @Override
  public String table() {
    return mirror.table();
  }

  @Override
  public io.tablecast.protocol.Message.Shape shape() {
    return WireTypes.shape(mirror.shape);
  }

  @Override
  public boolean isReady() {
    return mirror.isReady();
  }

  @Override
  public void snapshotProgress(long rowsReceived, long rowsExpected) {
    mirror.snapshotProgress = new SnapshotProgress(rowsReceived, rowsExpected);
  }

  /**
   * Maps the image of {@code key}; null when it cannot be mapped (logged, told to the error
   * listeners, and the mirror says it is stale until a later change of the row maps).
   */
  private V map(Object key, ObjectNode json) {
    V value;
    try {
      value = mapping.map(json);
    } catch (RuntimeException e) {
      return notMapped(key, e);
    }
    fit.mapped(key);
    return value;
  }

  /** As {@link #map(Object, ObjectNode)}, for the row {@code bytes} in the layout {@code form}. */
  private V map(Object key, RowForm form, byte[] bytes) {
    V value;
    try {
      value = mapping.map(form, bytes);
    } catch (RuntimeException e) {
      return notMapped(key, e);
    }
    fit.mapped(key);
    return value;
  }

  private V notMapped(Object key, RuntimeException e) {
    log.error(
        "cannot map the row of {} with key {} to the mirror's row type {}; its previous value is kept",
        mirror.table(),
        key,
        rowType.getName(),
        e);
    fit.failed(key, e.getMessage());
    clientListeners.rowNotMapped(mirror.table(), key, rowType, e);
    return null;
  }

  @Override
  public String setSchema(List<ColumnInfo> columns, List<String> primaryKey) {
    List<String> before = mirror.primaryKey;
    List<Column> cols = WireTypes.columns(columns);
    wireColumns = List.copyOf(columns);
    mirror.columns = cols;
    mirror.primaryKey = List.copyOf(primaryKey);
    rows.indexes.columns(cols);
    String cannot = null;
    if (!before.isEmpty() && !before.equals(primaryKey)) {
      cannot = rekey(mirror.primaryKey);
    }
    List<String> withoutColumn = fit.columns(cols);
    if (withoutColumn != null) {
      log.warn(
          "the row type of the mirror of {} has properties no column provides: {} (they read null)",
          mirror.table(),
          withoutColumn);
    }
    mirror.staleness.refresh();
    return cannot;
  }

  /**
   * Keys every row by a new primary key, read from the row (a row lacking a new key column leaves,
   * with a DELETE event: the server sends it again); returns why it could not (a typed row without
   * a property for a new key column: the rows stay as they are), or null.
   */
  private String rekey(List<String> newKey) {
    RowIndex<V> current = rows.current();
    RowIndex<V> fresh = new RowIndex<>(current.size());
    List<ChangeEvent<V>> events = new ArrayList<>();
    try {
      current.forEach(
          (oldKey, row) -> {
            Object key = mapping.keyOf(row, newKey);
            if (key != null) {
              fresh.put(key, row);
            } else {
              events.add(new ChangeEvent<>(mirror.table(), ChangeType.DELETE, oldKey, row, null));
            }
          });
    } catch (RowMapping.CannotRead e) {
      return "the rows of the mirror of "
          + mirror.table()
          + " cannot be keyed by the new primary key "
          + newKey
          + ": "
          + e.getMessage();
    }
    rows.replace(fresh, -1);
    log.info("mirror of {} re-keyed by its new primary key {}", mirror.table(), newKey);
    dispatcher.dispatch(events, mirror.listeners);
    return null;
  }

  @Override
  public void advance(long position) {
    rows.advance(position);
  }

  @Override
  public void apply(List<RowChange> changes, long batchPosition, long captureMillis) {
    List<Prepared<V>> prepared = new ArrayList<>(changes.size());
    for (RowChange c : changes) {
      if (c.after() == null) {
        fit.mapped(c.key()); // deleted: no longer held wrong
        prepared.add(new Prepared<>(c.key(), c.oldKey(), null));
      } else {
        V row = map(c.key(), c.after());
        if (row != null) {
          prepared.add(new Prepared<>(c.key(), c.oldKey(), row));
        }
      }
    }
    List<ChangeEvent<V>> events =
        rows.apply(mirror.table(), prepared, batchPosition, mirror.listeners::isPresent);
    mirror.staleness.refresh();
    if (activity == null) {
      activity = clientListeners.activity().table(mirror.table());
    }
    long lag = activity.applied(mirror, changes.size(), captureMillis);
    if (lag >= 0) {
      mirror.lagMillis = lag;
    }
    dispatcher.dispatch(events, mirror.listeners);
  }

  @Override
  public boolean keepsRowBytes() {
    return mapping instanceof GenericRowMapping;
  }

  /**
   * Replaces all rows with a snapshot in one step. When the mirror already held data, an unchanged
   * row ({@link RowMapping#sameImage}, else {@link RowMapping#sameValue}) keeps its value (the same
   * object) and only the differences are sent to listeners ({@link SnapshotSwap}).
   */
  @Override
  public SnapshotDiff install(Map<Object, ObjectNode> snapshot, long snapshotPosition) {
    SnapshotSwap<V> swap = new SnapshotSwap<>(mirror, mapping, fit, dispatcher);
    BiFunction<Object, ObjectNode, V> map = this::map; // once, not an object per row
    if (snapshot instanceof PendingRows pending) { // slot for slot, no second hashing of the keys
      SnapshotSwap.BytesMapping<V> mapBytes = this::map;
      return swap.finish(
          pending.mapped(
              new PendingRows.Mapper<>() {
                @Override
                public V bytes(Object key, RowForm form, byte[] bytes) {
                  return swap.received(key, form, bytes, mapBytes);
                }

                @Override
                public V tree(Object key, ObjectNode json) {
                  return swap.received(key, json, map);
                }
              }),
          snapshotPosition);
    }
    RowIndex<V> fresh = new RowIndex<>(snapshot.size());
    for (Map.Entry<Object, ObjectNode> e : snapshot.entrySet()) {
      V row = swap.received(e.getKey(), e.getValue(), map);
      if (row != null) {
        fresh.put(e.getKey(), row);
      }
    }
    return swap.finish(fresh, snapshotPosition);
  }

  /**
   * A typed mirror maps a snapshot's rows as they arrive ({@link TypedSnapshot}); a generic one
   * keeps a view of each row's bytes, which wait for the snapshot's end as they are.
   */
  @Override
  public MappedSnapshot mapsOnArrival(long expectedRows) {
    if (!(mapping instanceof TypedRowMapping<V> typed)) {
      return null;
    }
    return new TypedSnapshot<>(
        expectedRows, typed, this::map, () -> new SnapshotSwap<>(mirror, mapping, fit, dispatcher));
  }

  @Override
  public void stale(String reason) {
    mirror.staleness.server(reason);
  }

  @Override
  public void fail(ErrorCode code, String message) {
    mirror.readiness.fail(new TablecastException(WireTypes.serverError(code), message));
    if (mirror.readiness.wasReady()) {
      mirror.staleness.refused(message);
    }
  }

  @Override
  public void tooLarge(String message) {
    if (mirror.readiness.wasReady()) {
      mirror.staleness.server(message);
    } else {
      mirror.readiness.fail(new TablecastException(null, message));
    }
    clientListeners.tableTooLarge(mirror.table(), message);
  }

  @Override
  public Map<Object, ObjectNode> images() {
    Map<Object, ObjectNode> out = new HashMap<>(Math.max(16, rows.current().size() * 4 / 3 + 1));
    try {
      rows.current().forEach((k, r) -> out.put(k, mapping.image(r, wireColumns)));
    } catch (RowMapping.CannotRead e) {
      log.info(
          "the mirror of {} cannot seed another mirror of its table: {}",
          mirror.table(),
          e.getMessage());
      return null;
    }
    return out;
  }

  /** Reads the mirror's file and installs its rows; before the mirror is attached. */
  void readSaved() {
    MirrorFile.Header saved = persistence == null ? null : persistence.read();
    if (saved != null) {
      setSchema(saved.columns(), saved.primaryKey());
      persistence.install();
    }
  }

  @Override
  public MirrorFile.Header takeRestored() {
    return persistence == null ? null : persistence.takeRestored();
  }

  @Override
  public void caughtUp() {
    mirror.staleness.caughtUp();
  }

  @Override
  public Path file() {
    return persistence == null ? null : persistence.file();
  }

  @Override
  public String rowTypeName() {
    return rowType.getName();
  }

  @Override
  public MirrorFile.Rows rowsToSave() {
    return persistence == null ? null : persistence.rowsToSave(wireColumns);
  }
}
