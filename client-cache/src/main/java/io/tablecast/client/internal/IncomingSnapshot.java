package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink.SnapshotDiff;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot of one table in flight for its {@link TableFeed}: the rows received so far, keyed by
 * the table's primary key, with the changes of later batches applied to them, until the feed swaps
 * them into its mirrors at the snapshot's end; sized against the heap as they come ({@link
 * SnapshotSizing}). Confined to the connection's event loop.
 */
final class IncomingSnapshot {

  /** Logs under {@link TableFeed}, as before this was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TableFeed.class);

  private final String table;
  private PendingRows rows;
  private final long position;
  private final long startNanos = System.nanoTime();
  private final long expected;
  private long received;
  private final SnapshotSizing sizing;

  /** The snapshot {@code b} begins, for {@code mirrors}. */
  IncomingSnapshot(
      String table, SnapshotBegin b, SnapshotSizing.Settings settings, List<MirrorSink> mirrors) {
    this.table = table;
    this.rows = new PendingRows(b.rowCount());
    this.position = b.position();
    this.expected = b.rowCount();
    int views = (int) mirrors.stream().filter(MirrorSink::keepsRowBytes).count();
    int whole = (int) mirrors.stream().filter(MirrorSink::holdsWholeTable).count();
    this.sizing =
        new SnapshotSizing(
            table, b.rowCount(), settings, new SnapshotSizing.Mirrors(views, whole - views));
  }

  /** The rows received, by key. */
  PendingRows rows() {
    return rows;
  }

  /** Tells {@code mirrors} how many rows of how many came. */
  void tellProgress(FeedMirrors mirrors) {
    mirrors.snapshotProgress(received, expected);
  }

  /**
   * Adds a message's rows, keyed by {@code primaryKey} (a row without its key is logged and left
   * out); returns why the snapshot does not fit in the heap (nothing added then), else null.
   */
  String add(List<ObjectNode> batch, List<String> primaryKey) {
    List<Object> keys = new ArrayList<>(batch.size());
    List<ObjectNode> keyed = new ArrayList<>(batch.size());
    for (ObjectNode row : batch) {
      try {
        keys.add(RowKeys.fromRow(row, primaryKey));
        keyed.add(row);
      } catch (IllegalArgumentException e) {
        log.error("snapshot row of {} ignored: {}", table, e.getMessage());
      }
    }
    String tooLarge = sizing.rows(keyed, keys);
    if (tooLarge != null) {
      return tooLarge;
    }
    for (int i = 0; i < keyed.size(); i++) {
      rows.put(keys.get(i), keyed.get(i));
    }
    received += batch.size();
    return null;
  }

  /** The table took a new primary key: the rows are keyed anew (a row without it is dropped). */
  void rekey(List<String> primaryKey) {
    PendingRows rekeyed = new PendingRows(rows.size());
    rows.values()
        .forEach(
            row -> {
              Object key = RowKeys.fromRowOrNull(row, primaryKey);
              if (key != null) {
                rekeyed.put(key, row);
              }
            });
    rows = rekeyed;
  }

  /** Applies a batch's changes of the table when the batch is newer than the snapshot. */
  void apply(List<Change> changes, long batchPosition, List<String> primaryKey) {
    if (batchPosition > position) {
      for (Change c : changes) {
        ChangeKeys.applyTo(rows, c, primaryKey);
      }
    }
  }

  /** Logs the snapshot, installed at {@code snapshotPosition} with {@code diff}. */
  void logInstalled(long snapshotPosition, boolean wasResnapshot, SnapshotDiff diff) {
    long ms = (System.nanoTime() - startNanos) / 1_000_000;
    int count = rows.size();
    if (wasResnapshot) {
      log.info(
          "resnapshot of {}: {} rows at position {} in {} ms; {} inserted, {} updated, {} deleted",
          table,
          count,
          snapshotPosition,
          ms,
          diff.inserted(),
          diff.updated(),
          diff.deleted());
    } else {
      log.info(
          "snapshot of {}: {} rows at position {} in {} ms", table, count, snapshotPosition, ms);
    }
  }
}
