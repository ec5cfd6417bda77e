package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeListener;
import io.tablecast.client.StaleListener;
import io.tablecast.client.Subscription;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastException;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage and read side of a mirror. Rows live in an unbounded Caffeine cache of normalized
 * key to {@link Row} (typed value plus the JSON image it came from, kept for exact re-snapshot
 * diffs and for seeding sibling mirrors). Writes happen on the connection's event loop only,
 * one transaction per write lock; reads use an optimistic stamp.
 */
public final class MirrorImpl<V> implements TableMirror<V> {
  private static final Logger log = LoggerFactory.getLogger(MirrorImpl.class);

  /** A stored row: the typed value readers get and the JSON image it was mapped from. */
  record Row<V>(V value, ObjectNode json) {}

  /** One change prepared outside the lock: the new row is already mapped. */
  record Prepared<V>(Object key, Object oldKey, Row<V> row) {}

  private final String table;
  private final Function<ObjectNode, V> mapper;
  private final ListenerDispatcher dispatcher;
  private final StampedLock lock = new StampedLock();
  private final Object readyMonitor = new Object();
  private final List<ChangeListener<V>> listeners = new CopyOnWriteArrayList<>();

  private volatile Cache<Object, Row<V>> rows = newCache();
  private volatile List<String> primaryKey = List.of();
  private volatile List<ColumnInfo> columns = List.of();
  private volatile long position = -1;
  private volatile boolean ready;
  private volatile TablecastException failure;
  private volatile boolean closed;
  private volatile String staleReason;
  private final List<StaleListener> staleListeners = new CopyOnWriteArrayList<>();

  MirrorImpl(String table, Function<ObjectNode, V> mapper, ListenerDispatcher dispatcher) {
    this.table = table;
    this.mapper = mapper;
    this.dispatcher = dispatcher;
  }

  private static <V> Cache<Object, Row<V>> newCache() {
    return Caffeine.newBuilder().build();
  }

  // ---------------------------------------------------------------- reads

  @Override
  public String table() {
    return table;
  }

  @Override
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (readyMonitor) {
      while (true) {
        if (closed) {
          throw new TablecastException(null, "client is closed; mirror of " + table + " is not ready");
        }
        TablecastException f = failure;
        if (f != null && !ready) {
          throw new TablecastException(f.code(), f.getMessage());
        }
        if (ready) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        long ms = Math.max(1, left / 1_000_000);
        readyMonitor.wait(ms);
      }
    }
  }

  @Override
  public boolean isReady() {
    return ready && !closed;
  }

  @Override
  public V get(Object key) {
    return lookup(RowKeys.fromUser(key, primaryKey.size()));
  }

  @Override
  public V get(Object first, Object... rest) {
    return lookup(RowKeys.fromUser(first, rest));
  }

  private V lookup(Object key) {
    if (key == null) {
      return null;
    }
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      Row<V> r = rows.getIfPresent(key);
      if (lock.validate(stamp)) {
        return r == null ? null : r.value();
      }
    }
    stamp = lock.readLock();
    try {
      Row<V> r = rows.getIfPresent(key);
      return r == null ? null : r.value();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  @Override
  public int size() {
    long stamp = lock.readLock();
    try {
      return (int) Math.min(Integer.MAX_VALUE, rows.estimatedSize());
    } finally {
      lock.unlockRead(stamp);
    }
  }

  @Override
  public List<V> rows() {
    long stamp = lock.readLock();
    try {
      Map<Object, Row<V>> m = rows.asMap();
      List<V> out = new ArrayList<>(m.size());
      for (Row<V> r : m.values()) {
        out.add(r.value());
      }
      return out;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  @Override
  public Stream<V> stream() {
    return rows().stream();
  }

  @Override
  public void forEach(Consumer<? super V> action) {
    rows().forEach(action);
  }

  @Override
  public Map<Object, V> asMap() {
    long stamp = lock.readLock();
    try {
      Map<Object, Row<V>> m = rows.asMap();
      Map<Object, V> out = new HashMap<>(Math.max(16, m.size() * 4 / 3 + 1));
      m.forEach((k, r) -> out.put(k, r.value()));
      return out;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  @Override
  public List<String> primaryKey() {
    return primaryKey;
  }

  @Override
  public List<ColumnInfo> columns() {
    return columns;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public String staleReason() {
    return staleReason;
  }

  @Override
  public Subscription addStaleListener(StaleListener listener) {
    Objects.requireNonNull(listener, "listener");
    staleListeners.add(listener);
    return () -> staleListeners.remove(listener);
  }

  /** The server said whether the table is stale (reason) or followed (null). Event loop only. */
  void stale(String reason) {
    if (Objects.equals(reason, staleReason)) {
      return;
    }
    staleReason = reason;
    if (reason != null) {
      log.warn("mirror of {} is stale: {}", table, reason);
    } else {
      log.info("mirror of {} follows its table again", table);
    }
    for (StaleListener l : staleListeners) {
      dispatcher.run("stale listener of " + table, () -> l.staleChanged(reason));
    }
  }

  @Override
  public Subscription addListener(ChangeListener<V> listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  @Override
  public String toString() {
    return "TableMirror[" + table + ", rows=" + rows.estimatedSize() + ", ready=" + ready
        + ", position=" + position + "]";
  }

  // ---------------------------------------------------------------- writes (event loop only)

  /** Maps a JSON row to a stored row; null (logged) when the row cannot be mapped. */
  Row<V> map(ObjectNode json) {
    try {
      return new Row<>(mapper.apply(json), json);
    } catch (RuntimeException e) {
      log.error("cannot map a row of {} to the mirror's row type; row skipped: {}", table, json, e);
      return null;
    }
  }

  /** Current JSON images by key, for seeding a sibling mirror of the same table. */
  Map<Object, ObjectNode> jsonRows() {
    Map<Object, ObjectNode> out = new HashMap<>();
    rows.asMap().forEach((k, r) -> out.put(k, r.json()));
    return out;
  }

  void setSchema(List<ColumnInfo> columns, List<String> primaryKey) {
    this.columns = List.copyOf(columns);
    this.primaryKey = List.copyOf(primaryKey);
  }

  void advance(long position) {
    this.position = position;
  }

  /** Applies the changes of one transaction batch atomically, then queues listener events. */
  void apply(List<Prepared<V>> changes, long batchPosition) {
    boolean wantEvents = !listeners.isEmpty();
    List<ChangeEvent<V>> events = wantEvents ? new ArrayList<>(changes.size()) : List.of();
    Map<Object, Row<V>> m = rows.asMap();
    long stamp = lock.writeLock();
    try {
      for (Prepared<V> p : changes) {
        if (p.oldKey() != null) {
          Row<V> gone = m.remove(p.oldKey());
          if (wantEvents && gone != null) {
            events.add(new ChangeEvent<>(table, Op.DELETE, p.oldKey(), gone.value(), null));
          }
        }
        Row<V> before = p.row() == null ? m.remove(p.key()) : m.put(p.key(), p.row());
        if (wantEvents) {
          ChangeEvent<V> e = event(p.key(), before, p.row());
          if (e != null) {
            events.add(e);
          }
        }
      }
      position = batchPosition;
    } finally {
      lock.unlockWrite(stamp);
    }
    dispatcher.dispatch(events, listeners);
  }

  /**
   * Replaces all rows with a snapshot in one step. When the mirror already held data, only the
   * differences are sent to listeners.
   *
   * @return {inserted, updated, deleted} counts (zero when this is the first snapshot)
   */
  int[] install(Map<Object, ObjectNode> snapshot, long snapshotPosition) {
    Cache<Object, Row<V>> fresh = newCache();
    Map<Object, Row<V>> target = fresh.asMap();
    Map<Object, Row<V>> current = rows.asMap();
    boolean diff = ready;
    boolean wantEvents = diff && !listeners.isEmpty();
    List<ChangeEvent<V>> events = wantEvents ? new ArrayList<>() : List.of();
    int ins = 0;
    int upd = 0;
    int del = 0;
    for (Map.Entry<Object, ObjectNode> e : snapshot.entrySet()) {
      Row<V> old = diff ? current.get(e.getKey()) : null;
      Row<V> row;
      if (old != null && old.json().equals(e.getValue())) {
        row = old;
      } else {
        row = map(e.getValue());
        if (diff && row != null) {
          if (old == null) {
            ins++;
          } else {
            upd++;
          }
          if (wantEvents) {
            events.add(event(e.getKey(), old, row));
          }
        }
      }
      if (row != null) {
        target.put(e.getKey(), row);
      }
    }
    if (diff) {
      for (Map.Entry<Object, Row<V>> e : current.entrySet()) {
        if (!target.containsKey(e.getKey())) {
          del++;
          if (wantEvents) {
            events.add(new ChangeEvent<>(table, Op.DELETE, e.getKey(), e.getValue().value(), null));
          }
        }
      }
    }
    long stamp = lock.writeLock();
    try {
      rows = fresh;
      position = snapshotPosition;
    } finally {
      lock.unlockWrite(stamp);
    }
    markReady();
    dispatcher.dispatch(events, listeners);
    return new int[] {ins, upd, del};
  }

  private ChangeEvent<V> event(Object key, Row<V> before, Row<V> after) {
    if (before == null && after == null) {
      return null;
    }
    Op op = before == null ? Op.INSERT : after == null ? Op.DELETE : Op.UPDATE;
    return new ChangeEvent<>(table, op, key,
        before == null ? null : before.value(), after == null ? null : after.value());
  }

  void markReady() {
    synchronized (readyMonitor) {
      ready = true;
      failure = null;
      readyMonitor.notifyAll();
    }
  }

  /** Records a failure that {@link #awaitReady} reports while the mirror is not ready. */
  void fail(TablecastException e) {
    synchronized (readyMonitor) {
      failure = e;
      readyMonitor.notifyAll();
    }
  }

  void clearFailure() {
    failure = null;
  }

  void close() {
    synchronized (readyMonitor) {
      closed = true;
      ready = false;
      readyMonitor.notifyAll();
    }
  }
}
