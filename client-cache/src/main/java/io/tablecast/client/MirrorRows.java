package io.tablecast.client;

import io.tablecast.client.internal.RowIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The rows of one mirror: the row type's values by key in a {@link RowIndex}, nothing beside them.
 * A transaction's changes are applied under the write lock of a {@link StampedLock}, a snapshot is
 * swapped in as a whole new index under it, and the stream position moves with them, so that no
 * reader sees half a transaction. Readers of one row use an optimistic stamp and take the read lock
 * only when a batch was being applied at that instant (the index tolerates a read beside its
 * writer: what such a read finds, or fails on, is discarded by the stamp's validation); readers of
 * all rows copy them under the read lock. Its secondary indexes ({@link MirrorIndexes}) change in
 * the same write-locked steps as the rows, and are read under the read lock with them ({@link
 * #read}), so that an index and the rows never disagree for a reader. Written on the connection's
 * event loop only (and under the write lock by a thread declaring an index).
 *
 * @param <V> the row type
 */
final class MirrorRows<V> {

  /** One change prepared outside the lock: the new row already mapped, null for a delete. */
  record Prepared<V>(Object key, Object oldKey, V row) {}

  private final StampedLock lock = new StampedLock();
  private volatile RowIndex<V> rows = new RowIndex<>(0);
  private volatile long position = -1;
  final MirrorIndexes<V> indexes;

  MirrorRows(MirrorIndexes<V> indexes) {
    this.indexes = indexes;
  }

  // ---------------------------------------------------------------- any thread

  /** The value of the row with the normalized {@code key}, or null. */
  V get(Object key) {
    if (key == null) {
      return null;
    }
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      try {
        V r = rows.get(key);
        if (lock.validate(stamp)) {
          return r;
        }
      } catch (RuntimeException e) { // read beside the writer: discarded, read again under the lock
        if (lock.validate(stamp)) {
          throw e;
        }
      }
    }
    stamp = lock.readLock();
    try {
      return rows.get(key);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  int size() {
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      int n = rows.size();
      if (lock.validate(stamp)) {
        return n;
      }
    }
    stamp = lock.readLock();
    try {
      return rows.size();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** A consistent copy of every row's value. */
  List<V> values() {
    long stamp = lock.readLock();
    try {
      List<V> out = new ArrayList<>(rows.size());
      rows.forEach((k, r) -> out.add(r));
      return out;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** A consistent copy of every row's value by key. */
  Map<Object, V> copy() {
    long stamp = lock.readLock();
    try {
      Map<Object, V> out = new HashMap<>(Math.max(16, rows.size() * 4 / 3 + 1));
      rows.forEach(out::put);
      return out;
    } finally {
      lock.unlockRead(stamp);
    }
  }

  long position() {
    return position;
  }

  /**
   * What {@code read} returns, computed under the read lock: the rows ({@link #current}) and the
   * indexes as of one transaction boundary. {@code read} must not take this lock again.
   */
  <R> R read(Supplier<R> read) {
    long stamp = lock.readLock();
    try {
      return read.get();
    } finally {
      lock.unlockRead(stamp);
    }
  }

  /** Adds an index filled from the rows as they are; any thread. */
  void addIndex(IndexDefinition<V> definition) {
    long stamp = lock.writeLock();
    try {
      indexes.add(definition, rows);
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  // ---------------------------------------------------------------- the writer (event loop only)

  /** The rows as they are; read by the writer, who alone changes them, or under the lock. */
  RowIndex<V> current() {
    return rows;
  }

  /** Moves the position without changing rows. */
  void advance(long newPosition) {
    position = newPosition;
  }

  /**
   * Applies one transaction's changes and moves to {@code batchPosition} atomically.
   *
   * @param heard whether a listener would hear the changes, asked under the write lock: a listener
   *     registers under the read lock ({@link #read}), so it hears every change applied after its
   *     registration, and what was applied before is in the rows it can read then
   * @return the change events, when {@code heard}
   */
  List<ChangeEvent<V>> apply(
      String table, List<Prepared<V>> changes, long batchPosition, BooleanSupplier heard) {
    RowIndex<V> m = rows;
    long stamp = lock.writeLock();
    try {
      boolean wantEvents = heard.getAsBoolean();
      List<ChangeEvent<V>> events = wantEvents ? new ArrayList<>(changes.size()) : List.of();
      MirrorIndexes<V> ix = indexes.isEmpty() ? null : indexes; // an index may come meanwhile
      for (Prepared<V> p : changes) {
        if (p.oldKey() != null) {
          V gone = m.remove(p.oldKey());
          if (ix != null && gone != null) {
            ix.removed(p.oldKey(), gone);
          }
          if (wantEvents && gone != null) {
            events.add(new ChangeEvent<>(table, ChangeType.DELETE, p.oldKey(), gone, null));
          }
        }
        V before = p.row() == null ? m.remove(p.key()) : m.put(p.key(), p.row());
        if (ix != null) {
          if (before != null) {
            ix.removed(p.key(), before);
          }
          if (p.row() != null) {
            ix.added(p.key(), p.row());
          }
        }
        if (wantEvents) {
          ChangeEvent<V> e = event(table, p.key(), before, p.row());
          if (e != null) {
            events.add(e);
          }
        }
      }
      position = batchPosition;
      return events;
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** Replaces every row with {@code fresh} (an index no reader has seen) in one step. */
  void replace(RowIndex<V> fresh, long newPosition) {
    replace(fresh, newPosition, () -> false);
  }

  /**
   * As {@link #replace(RowIndex, long)}; returns whether a listener would hear the difference,
   * asked under the write lock as {@link #apply} asks it.
   */
  boolean replace(RowIndex<V> fresh, long newPosition, BooleanSupplier heard) {
    List<SecondaryIndex<V>> built = indexes.buildFor(fresh);
    long stamp = lock.writeLock();
    try {
      rows = fresh;
      indexes.install(built, fresh);
      if (newPosition >= 0) {
        position = newPosition;
      }
      return heard.getAsBoolean();
    } finally {
      lock.unlockWrite(stamp);
    }
  }

  /** The event of a key going from {@code before} to {@code after}; null when both are absent. */
  static <V> ChangeEvent<V> event(String table, Object key, V before, V after) {
    if (before == null && after == null) {
      return null;
    }
    ChangeType op =
        before == null ? ChangeType.INSERT : after == null ? ChangeType.DELETE : ChangeType.UPDATE;
    return new ChangeEvent<>(table, op, key, before, after);
  }
}
