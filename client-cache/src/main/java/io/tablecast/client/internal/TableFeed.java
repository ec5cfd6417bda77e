package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.TablecastException;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import io.tablecast.protocol.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream state of one subscribed table and the mirrors fed from it (one per row type).
 * Confined to the connection's event loop.
 */
final class TableFeed {
  private static final Logger log = LoggerFactory.getLogger(TableFeed.class);

  final String table;
  private final List<MirrorImpl<?>> mirrors = new ArrayList<>();
  private List<ColumnInfo> columns = List.of();
  private List<String> primaryKey = List.of();
  /** True once the mirrors hold a complete copy of the table (as of {@link #position}). */
  private boolean synced;
  private long position = -1;
  /** The server epoch {@link #position} belongs to; null before the first snapshot. */
  private String epoch;
  /**
   * True while this table's subscription has been answered on the current connection (its
   * snapshot ended or it was resumed), so it follows the session's stream and is in sync with
   * the session's last position. Kept when the connection drops (to decide about resuming) and
   * cleared when the table is subscribed again.
   */
  private boolean inStream;
  /** Rows of a snapshot in flight, swapped into the mirrors at its end; null otherwise. */
  private Map<Object, ObjectNode> pending;
  private long pendingPosition;
  private long pendingStartNanos;

  /**
   * After a snapshot or resume: the server says right away (before any batch) when the table is
   * stale; a batch without that word first means it is followed.
   */
  private boolean statusDue;

  TableFeed(String table) {
    this.table = table;
  }

  boolean synced() {
    return synced;
  }

  /**
   * Whether the mirrors hold exactly the table as of {@code position} in {@code epoch}, so a
   * subscribe may resume it from there: either it followed the stream up to the connection's
   * end, or it was still waiting for an answer at the position the session resumed from.
   */
  boolean resumableFrom(String lastEpoch, long lastPosition) {
    return synced && pending == null && epoch != null && epoch.equals(lastEpoch)
        && (inStream || position == lastPosition);
  }

  /** A subscribe for this table was sent: it leaves the stream until answered. */
  void subscribing() {
    inStream = false;
  }

  boolean inStream() {
    return inStream;
  }

  boolean hasMirrors() {
    return !mirrors.isEmpty();
  }

  /** Adds a mirror; when the table is already in sync, seeds it from a sibling's rows. */
  void addMirror(MirrorImpl<?> m) {
    if (synced && !mirrors.isEmpty()) {
      m.setSchema(columns, primaryKey);
      m.install(mirrors.get(0).jsonRows(), position);
    }
    mirrors.add(m);
  }

  void beginSnapshot(SnapshotBegin b) {
    columns = b.columns();
    primaryKey = b.primaryKey();
    pending = new LinkedHashMap<>((int) Math.min(1 << 20, Math.max(16, b.rowCount() * 4 / 3 + 1)));
    pendingPosition = b.position();
    pendingStartNanos = System.nanoTime();
    synced = false;
    inStream = false;
  }

  void snapshotRows(List<ObjectNode> rows) {
    if (pending == null) {
      log.warn("snapshot rows for {} without a snapshot begin; ignored", table);
      return;
    }
    for (ObjectNode row : rows) {
      try {
        pending.put(RowKeys.fromRow(row, primaryKey), row);
      } catch (IllegalArgumentException e) {
        log.error("snapshot row of {} ignored: {}", table, e.getMessage());
      }
    }
  }

  /** Swaps the finished snapshot into every mirror; returns a summary for the log. */
  String endSnapshot(String sessionEpoch, long snapshotPosition, boolean wasResnapshot) {
    if (pending == null) {
      log.warn("snapshot end for {} without a snapshot begin; ignored", table);
      return null;
    }
    int[] diff = {0, 0, 0};
    for (MirrorImpl<?> m : mirrors) {
      m.setSchema(columns, primaryKey);
      int[] d = m.install(pending, snapshotPosition);
      diff = d;
    }
    long ms = (System.nanoTime() - pendingStartNanos) / 1_000_000;
    int rows = pending.size();
    pending = null;
    synced = true;
    inStream = true;
    statusDue = true;
    epoch = sessionEpoch;
    position = snapshotPosition;
    return wasResnapshot
        ? String.format("resnapshot of %s: %d rows at position %d in %d ms; %d inserted, %d updated,"
            + " %d deleted", table, rows, snapshotPosition, ms, diff[0], diff[1], diff[2])
        : String.format("snapshot of %s: %d rows at position %d in %d ms", table, rows,
            snapshotPosition, ms);
  }

  /** The server resumed the stream for this table after {@code resumedPosition}. */
  void resumed(String sessionEpoch, List<ColumnInfo> cols, List<String> pk, long resumedPosition) {
    if (cols != null && pk != null) {
      columns = cols;
      primaryKey = pk;
      for (MirrorImpl<?> m : mirrors) {
        m.setSchema(cols, pk);
      }
    }
    pending = null;
    synced = true;
    inStream = true;
    statusDue = true;
    epoch = sessionEpoch;
    // the server accepted our position, so it is the truth even if it is lower than ours
    position = resumedPosition;
    for (MirrorImpl<?> m : mirrors) {
      m.advance(resumedPosition);
    }
  }

  /** The table's column list changed while serving: the batches that follow use it. */
  void schemaChanged(List<ColumnInfo> cols, List<String> pk, int version) {
    columns = cols;
    primaryKey = pk;
    for (MirrorImpl<?> m : mirrors) {
      m.setSchema(cols, pk);
    }
    log.info("{} now has columns {} (version {})", table, cols.stream().map(ColumnInfo::name).toList(), version);
  }

  /** The server said whether the table is stale. */
  void status(boolean stale, String reason) {
    statusDue = false;
    for (MirrorImpl<?> m : mirrors) {
      m.stale(stale ? reason : null);
    }
  }

  /** A batch came: a status still due after a snapshot or resume did not come, so the table is followed. */
  private void settleStatus() {
    if (statusDue) {
      status(false, null);
    }
  }

  /** A batch without changes for this table: only the position moves. */
  void advance(long batchPosition) {
    settleStatus();
    if (inStream && batchPosition > position) {
      position = batchPosition;
      for (MirrorImpl<?> m : mirrors) {
        m.advance(batchPosition);
      }
    }
  }

  /** Applies this table's part of one batch, atomically per mirror. */
  void apply(List<Change> changes, long batchPosition) {
    settleStatus();
    if (pending != null) {
      if (batchPosition > pendingPosition) {
        for (Change c : changes) {
          applyToJson(pending, c);
        }
      }
      return;
    }
    if (!inStream || batchPosition <= position) {
      log.debug("batch {} for {} skipped (inStream={}, position={})", batchPosition, table,
          inStream, position);
      return;
    }
    for (MirrorImpl<?> m : mirrors) {
      applyTo(m, changes, batchPosition);
    }
    position = batchPosition;
  }

  private <V> void applyTo(MirrorImpl<V> m, List<Change> changes, long batchPosition) {
    List<MirrorImpl.Prepared<V>> prepared = new ArrayList<>(changes.size());
    for (Change c : changes) {
      Object key = RowKeys.fromKeyArray(c.key());
      Object oldKey = oldKey(c, key);
      if (c.op() == Op.DELETE) {
        prepared.add(new MirrorImpl.Prepared<>(key, oldKey, null));
        continue;
      }
      if (c.after() == null) {
        log.error("{} of {} key {} has no row image; ignored", c.op(), table, key);
        continue;
      }
      MirrorImpl.Row<V> row = m.map(c.after());
      if (row != null) {
        prepared.add(new MirrorImpl.Prepared<>(key, oldKey, row));
      }
    }
    m.apply(prepared, batchPosition);
  }

  /** The previous key of an update that changed the primary key, else null. */
  private Object oldKey(Change c, Object key) {
    if (c.op() != Op.UPDATE || c.before() == null || primaryKey.isEmpty()) {
      return null;
    }
    try {
      Object old = RowKeys.fromRow(c.before(), primaryKey);
      return old.equals(key) ? null : old;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private void applyToJson(Map<Object, ObjectNode> rows, Change c) {
    Object key = RowKeys.fromKeyArray(c.key());
    Object oldKey = oldKey(c, key);
    if (oldKey != null) {
      rows.remove(oldKey);
    }
    if (c.op() == Op.DELETE || c.after() == null) {
      rows.remove(key);
    } else {
      rows.put(key, c.after());
    }
  }

  /**
   * The connection dropped: a snapshot in flight is discarded (the table is subscribed fresh on
   * reconnect), synced data stays.
   */
  void disconnected() {
    pending = null;
  }

  /** The server refused the subscription. */
  void fail(TablecastException e) {
    pending = null;
    synced = false;
    inStream = false;
    for (MirrorImpl<?> m : mirrors) {
      m.fail(e);
    }
  }

  /** Surfaces a connection-level failure to mirrors that are still waiting for data. */
  void failIfNotReady(TablecastException e) {
    for (MirrorImpl<?> m : mirrors) {
      if (!m.isReady()) {
        m.fail(e);
      }
    }
  }

}
