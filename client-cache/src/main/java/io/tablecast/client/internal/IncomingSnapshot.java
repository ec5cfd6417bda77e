package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink.SnapshotDiff;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedRows;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot of one table in flight for its {@link TableFeed}: the rows received so far, keyed by
 * the table's primary key, with the changes of later batches applied to them, until the feed swaps
 * them into its mirrors at the snapshot's end; sized against the heap as they come ({@link
 * SnapshotSizing}). A mirror that maps rows to objects of its own (a typed mirror) maps them as
 * they arrive, into its own copy ({@link MirrorSink.MappedSnapshot}); the rows themselves wait in
 * {@link PendingRows} only for the other mirrors (a generic mirror keeps a view of their bytes), so
 * a table whose mirrors are all typed holds no row's bytes past its chunk. Confined to the
 * connection's event loop.
 */
final class IncomingSnapshot {

  /** Logs under {@link TableFeed}, as before this was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TableFeed.class);

  private final String table;

  /** The rows, for the mirrors that take them at the end; null when no mirror does. */
  private PendingRows rows;

  /** The copies of the mirrors that map rows as they arrive, by mirror. */
  private final IdentityHashMap<MirrorSink, MirrorSink.MappedSnapshot> mapped =
      new IdentityHashMap<>();

  /** The values of {@link #mapped}, walked for every row without an iterator per row. */
  private MirrorSink.MappedSnapshot[] copies;

  /** Why the snapshot cannot be installed and must be asked for again; null while it can be. */
  private String fetchAgain;

  private final long position;
  private final long startNanos = System.nanoTime();
  private final long expected;
  private long received;

  /** The rows installed, for the log. */
  private int installed;

  private final SnapshotSizing sizing;

  /** Whether the indexes were given room for every row announced ({@link #reserveOnce}). */
  private boolean reserved;

  /** The snapshot {@code b} begins, for {@code mirrors}. */
  IncomingSnapshot(
      String table, SnapshotBegin b, SnapshotSizing.Settings settings, List<MirrorSink> mirrors) {
    this.table = table;
    this.position = b.position();
    this.expected = b.rowCount();
    int views = 0;
    int objects = 0;
    long mappedObjectBytes = 0;
    for (MirrorSink m : mirrors) {
      MirrorSink.MappedSnapshot copy = m.holdsWholeTable() ? m.mapsOnArrival(b.rowCount()) : null;
      if (copy != null) {
        mapped.put(m, copy);
        mappedObjectBytes += copy.objectBytes();
      } else if (m.holdsWholeTable() && m.keepsRowBytes()) {
        views++;
      } else if (m.holdsWholeTable()) {
        objects++;
      }
    }
    this.copies = mapped.values().toArray(new MirrorSink.MappedSnapshot[0]);
    this.rows = views + objects > 0 ? new PendingRows(b.rowCount()) : null;
    this.sizing =
        new SnapshotSizing(
            table,
            b.rowCount(),
            settings,
            new SnapshotSizing.Mirrors(views, objects, mapped.size(), mappedObjectBytes));
  }

  /** The rows received, by key, for the mirrors that take them at the end; null when none does. */
  PendingRows rows() {
    return rows;
  }

  /** Tells {@code mirrors} how many rows of how many came. */
  void tellProgress(FeedMirrors mirrors) {
    mirrors.snapshotProgress(received, expected);
  }

  /** Tells {@code mirror} how many rows of how many came. */
  void tellProgress(MirrorSink mirror) {
    mirror.snapshotProgress(received, expected);
  }

  /**
   * Adds a message's rows, keyed by {@code primaryKey} (a row without its key is logged and left
   * out); returns why the snapshot does not fit in the heap (nothing added then), else null.
   */
  String add(List<ObjectNode> batch, List<String> primaryKey) {
    if (fetchAgain != null) {
      return null;
    }
    if (batch instanceof PackedRows packed && packed.form() != null) {
      Object[] keys = keys(packed, primaryKey);
      if (keys != null) {
        return add(packed, keys);
      } // a row without its key: the rows one by one, as trees, that one logged and left out
    }
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
    reserveOnce();
    for (int i = 0; i < keyed.size(); i++) {
      put(keys.get(i), keyed.get(i));
    }
    received += batch.size();
    return null;
  }

  /**
   * Once the first rows fit the heap, room for every row announced: the indexes then have the
   * capacity of the server's image for as many rows (its slot order is the order rows come in),
   * instead of growing as they come, each growth short of it leaving half of its slots to be filled
   * twice over.
   */
  private void reserveOnce() {
    if (reserved) {
      return;
    }
    reserved = true;
    if (rows != null) {
      rows.reserve(expected);
    }
    for (MirrorSink.MappedSnapshot copy : copies) {
      copy.reserve(expected);
    }
  }

  /** The keys of a chunk's rows, read from their bytes; null when a row lacks its key. */
  private static Object[] keys(PackedRows batch, List<String> primaryKey) {
    Object[] keys = new Object[batch.size()];
    try {
      for (int i = 0; i < keys.length; i++) {
        keys[i] = RowKeys.fromBytesOrNull(batch.form(), batch.bytes(i), primaryKey);
        if (keys[i] == null) {
          return null;
        }
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return keys;
  }

  /**
   * As {@link #add(List, List)} for rows in the row form keyed by {@code keys}: each row goes to
   * the mirrors as its bytes, with no object made around them.
   */
  private String add(PackedRows batch, Object[] keys) {
    String tooLarge = sizing.rows(batch, Arrays.asList(keys));
    if (tooLarge != null) {
      return tooLarge;
    }
    reserveOnce();
    RowForm form = batch.form();
    for (int i = 0; i < keys.length; i++) {
      byte[] bytes = batch.bytes(i);
      if (rows != null) {
        rows.put(keys[i], form, bytes);
      }
      for (MirrorSink.MappedSnapshot copy : copies) {
        copy.put(keys[i], form, bytes);
      }
    }
    received += batch.size();
    return null;
  }

  private void put(Object key, ObjectNode row) {
    if (rows != null) {
      rows.put(key, row);
    }
    for (MirrorSink.MappedSnapshot copy : copies) {
      copy.put(key, row);
    }
  }

  private void remove(Object key) {
    if (rows != null) {
      rows.remove(key);
    }
    for (MirrorSink.MappedSnapshot copy : copies) {
      copy.remove(key);
    }
  }

  /**
   * The table took a new primary key: the rows are keyed anew (a row without it is dropped). Rows
   * already mapped by a mirror cannot be (the object may lack a key column, or give it in another
   * form than the row did): the snapshot is let go, to be asked for again at its end.
   */
  void rekey(List<String> primaryKey) {
    if (!mapped.isEmpty()) {
      drop("the primary key of " + table + " changed while its snapshot was coming");
      return;
    }
    if (rows == null) {
      return;
    }
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

  /** Lets every row go for {@code why}: the snapshot is to be asked for again at its end. */
  private void drop(String why) {
    fetchAgain = why;
    rows = null;
    mapped.clear();
    copies = new MirrorSink.MappedSnapshot[0];
  }

  /** Applies a batch's changes of the table when the batch is newer than the snapshot. */
  void apply(List<Change> changes, long batchPosition, List<String> primaryKey) {
    if (batchPosition <= position || fetchAgain != null) {
      return;
    }
    for (Change c : changes) {
      Object key = RowKeys.fromKeyArray(c.key());
      Object oldKey = ChangeKeys.oldKey(c, key, primaryKey);
      if (oldKey != null) {
        remove(oldKey);
      }
      if (c.op() == Op.DELETE || c.after() == null) {
        remove(key);
      } else {
        put(key, c.after());
      }
    }
  }

  /**
   * Why the snapshot cannot be installed in {@code mirrors} (the table's mirrors at its end) and
   * must be asked for again, or null: it was let go, or it came without rows ({@code rowsOmitted},
   * for near caches) and a mirror holding the whole table was created meanwhile, or a mirror added
   * while it came needs rows that were not kept.
   */
  String cannotInstall(List<MirrorSink> mirrors, boolean rowsOmitted) {
    if (fetchAgain != null) {
      return fetchAgain;
    }
    for (MirrorSink m : mirrors) {
      if (m.holdsWholeTable() && rowsOmitted) {
        return "a mirror of " + table + " was created while its snapshot without rows was coming";
      }
      if (m.holdsWholeTable() && rows == null && !mapped.containsKey(m)) {
        return "a mirror of " + table + " was added while its snapshot was coming";
      }
    }
    return null;
  }

  /**
   * Installs the snapshot at {@code snapshotPosition} in every mirror of {@code mirrors}, with the
   * table's columns, each caught up; returns what it changed in the last ({@link SnapshotDiff#NONE}
   * without mirrors).
   */
  SnapshotDiff install(
      List<MirrorSink> mirrors, List<ColumnInfo> columns, List<String> pk, long snapshotPosition) {
    installed =
        rows != null
            ? rows.size()
            : mapped.values().stream().mapToInt(MirrorSink.MappedSnapshot::size).max().orElse(0);
    SnapshotDiff diff = SnapshotDiff.NONE;
    for (MirrorSink m : mirrors) {
      m.setSchema(columns, pk);
      MirrorSink.MappedSnapshot copy = mapped.get(m);
      diff =
          copy != null
              ? copy.install(snapshotPosition)
              : m.install(rows != null ? rows : Map.of(), snapshotPosition);
      m.caughtUp();
    }
    return diff;
  }

  /**
   * For the log when the connection ended before the snapshot did: how far it had come, and, the
   * {@code inARow}-th time in a row, what decides it. A server drops a client that has not read a
   * snapshot within its {@code slow_consumer.snapshot_timeout}, or from which it heard nothing for
   * its {@code idle_timeout}; its error frame may wait behind the rows the client never read.
   */
  String cutShort(int inARow) {
    String done =
        String.format(
            Locale.ROOT,
            "the snapshot of %s was cut short by the end of the connection after %,d of %,d rows"
                + " in %.1f s; it is asked for again on reconnect",
            table,
            received,
            expected,
            (System.nanoTime() - startNanos) / 1e9);
    if (inARow < 2) {
      return done;
    }
    return done
        + " ("
        + inARow
        + " snapshots of it cut short in a row: a server drops a client that does not read a"
        + " snapshot within its slow_consumer.snapshot_timeout, or that it hears nothing from for"
        + " its idle_timeout, and its log says which; give this client the CPU and heap to read"
        + " the table in time, or raise that setting)";
  }

  /** Logs the snapshot, installed at {@code snapshotPosition} with {@code diff}. */
  void logInstalled(long snapshotPosition, boolean wasResnapshot, SnapshotDiff diff) {
    long ms = (System.nanoTime() - startNanos) / 1_000_000;
    if (wasResnapshot) {
      log.info(
          "resnapshot of {}: {} rows at position {} in {} ms; {} inserted, {} updated, {} deleted",
          table,
          installed,
          snapshotPosition,
          ms,
          diff.inserted(),
          diff.updated(),
          diff.deleted());
    } else {
      log.info(
          "snapshot of {}: {} rows at position {} in {} ms",
          table,
          installed,
          snapshotPosition,
          ms);
    }
  }
}
