package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink.RowChange;
import io.tablecast.client.internal.MirrorSink.SnapshotDiff;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream state of one subscribed table, the mirrors fed from it ({@link FeedMirrors}, one per
 * row type) and its snapshots ({@link FeedSnapshots}). Confined to the connection's event loop.
 */
final class TableFeed {
  private static final Logger log = LoggerFactory.getLogger(TableFeed.class);

  final String table;
  private final FeedMirrors mirrors = new FeedMirrors();
  private List<ColumnInfo> columns = List.of();
  private List<String> primaryKey = List.of();

  /** True once the mirrors hold a complete copy of the table (as of {@link #position}). */
  private boolean synced;

  private long position = -1;

  /** The mirrors hold the table as a mirror file had it; no snapshot or resume came since. */
  private boolean fromFile;

  /** The server epoch {@link #position} belongs to; null before the first snapshot. */
  private String epoch;

  /**
   * True while this table's subscription has been answered on the current connection (its snapshot
   * ended or it was resumed), so it follows the session's stream and is in sync with the session's
   * last position. Kept when the connection drops (to decide about resuming) and cleared when the
   * table is subscribed again.
   */
  private boolean inStream;

  /** The last subscribe asked for a snapshot without rows (its mirrors were near caches). */
  private boolean rowsOmitted;

  /** The snapshot in flight, if any, swapped into the mirrors at its end. */
  private final FeedSnapshots snapshots;

  /**
   * After a snapshot or resume: the server says right away (before any batch) when the table is
   * stale; a batch without that word first means it is followed.
   */
  private boolean statusDue;

  /** Told (table, why) when the mirrors need a fresh snapshot of the table to go on. */
  private final BiConsumer<String, String> freshNeeded;

  TableFeed(
      String table,
      SnapshotSizing.Settings sizingSettings,
      BiConsumer<String, String> freshNeeded) {
    this.table = table;
    this.snapshots = new FeedSnapshots(table, sizingSettings, mirrors);
    this.freshNeeded = freshNeeded;
  }

  boolean synced() {
    return synced;
  }

  /** The server epoch of {@link #position()}; null before the first snapshot or restore. */
  String epoch() {
    return epoch;
  }

  /** The position the mirrors hold the table at (when {@link #synced()}). */
  long position() {
    return position;
  }

  /**
   * Whether the mirrors hold exactly the table as of {@code position} in {@code epoch}, so a
   * subscribe may resume it from there: either it followed the stream up to the connection's end,
   * or it was still waiting for an answer at the position the session resumed from.
   */
  boolean resumableFrom(String lastEpoch, long lastPosition) {
    return synced
        && !snapshots.inFlight()
        && epoch != null
        && epoch.equals(lastEpoch)
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

  /** The shape every mirror of the table has (its first mirror's); null for all rows. */
  io.tablecast.protocol.Message.Shape shape() {
    return mirrors.shape();
  }

  /**
   * For a subscribe about to be sent: whether its snapshot may come without rows, every mirror of
   * the table being a near cache; remembered until the next subscribe.
   */
  boolean subscribeWithoutRows() {
    rowsOmitted = !mirrors.isEmpty() && !mirrors.anyHoldsWholeTable();
    return rowsOmitted;
  }

  /** Whether a mirror of this table holds it (so its next snapshot is a resnapshot). */
  boolean wasEverReady() {
    return mirrors.anyReady();
  }

  /**
   * Adds a mirror; when the table is already in sync, seeds it from a sibling's rows, or, when no
   * sibling's rows hold every column (typed rows), asks for a fresh snapshot of the table.
   */
  boolean addMirror(MirrorSink m) {
    MirrorFile.Header restored = m.takeRestored();
    if (restored != null && !synced) {
      return addRestored(m, restored);
    }
    if (restored != null) {
      log.info(
          "{} is followed already: a new mirror of it starts from the rows held, not from {}",
          table,
          m.file());
    }
    if (synced && !m.holdsWholeTable()) {
      m.setSchema(columns, primaryKey); // a near cache loads rows itself: it needs only the layout
      m.install(Map.of(), position);
      m.caughtUp();
    } else if (synced && !mirrors.isEmpty()) {
      Map<Object, ObjectNode> images = mirrors.images();
      if (images != null) {
        m.setSchema(columns, primaryKey);
        m.install(images, position);
        if (!fromFile) {
          m.caughtUp(); // its rows from a file are replaced by rows the stream keeps current
        }
      } else {
        needFresh(
            "a new mirror of "
                + table
                + " cannot be seeded from the rows of the others (typed rows lacking a column)");
      }
    }
    mirrors.add(m);
    snapshots.tellProgress(m); // a mirror added while a snapshot comes shows how far it is
    return false;
  }

  /**
   * A mirror restored from its file (warm restart) holds its rows already. The first mirror of a
   * table that is not followed yet brings the table to the file's position, from which it may
   * resume (returns true); for any other the stream's next snapshot compares with its rows.
   */
  private boolean addRestored(MirrorSink m, MirrorFile.Header h) {
    boolean first = mirrors.isEmpty() && epoch == null;
    mirrors.add(m);
    if (first) {
      columns = h.columns();
      primaryKey = h.primaryKey();
      epoch = h.epoch();
      position = h.position();
      synced = true;
      inStream = false;
      fromFile = true;
    }
    return first;
  }

  /**
   * Adds what to write for each saved mirror of this table, the rows as they are now at {@link
   * #position}; nothing while the table is not held whole (before its first snapshot, during a
   * resnapshot, when it needs a fresh one).
   */
  void collectSaves(List<MirrorFile.ToWrite> out, long nowMillis) {
    if (!synced || snapshots.inFlight() || epoch == null) {
      return;
    }
    mirrors.collectSaves(
        out,
        rowType ->
            new MirrorFile.Header(table, rowType, epoch, position, nowMillis, columns, primaryKey));
  }

  /**
   * The mirrors cannot go on without a fresh snapshot: the table leaves the stream (its batches are
   * skipped, its mirrors keep their rows) and is subscribed fresh on the next connection.
   */
  private void needFresh(String why) {
    log.info("{}: a fresh snapshot of it is needed", why);
    synced = false;
    inStream = false;
    freshNeeded.accept(table, why);
  }

  void beginSnapshot(SnapshotBegin b) {
    columns = b.columns();
    primaryKey = b.primaryKey();
    snapshots.begin(b);
    synced = false;
    inStream = false;
  }

  /**
   * Adds rows to the snapshot in flight; one they make too big for the heap is refused: the table
   * leaves the stream until subscribed again, and the mirrors are told.
   */
  void snapshotRows(List<ObjectNode> rows) {
    String tooLarge = snapshots.add(rows, primaryKey);
    if (tooLarge != null) {
      synced = false;
      inStream = false;
      mirrors.tooLarge(tooLarge);
    }
  }

  /**
   * Swaps the finished snapshot into every mirror and logs it; returns what it changed (null
   * without a snapshot in flight).
   */
  SnapshotDiff endSnapshot(String sessionEpoch, long snapshotPosition, boolean wasResnapshot) {
    IncomingSnapshot done = snapshots.end();
    if (done == null) {
      return null;
    }
    String cannot = done.cannotInstall(mirrors.all(), rowsOmitted);
    if (cannot != null) {
      needFresh(cannot);
      return null;
    }
    SnapshotDiff diff = done.install(mirrors.all(), columns, primaryKey, snapshotPosition);
    inSyncAt(sessionEpoch, snapshotPosition);
    done.logInstalled(snapshotPosition, wasResnapshot, diff);
    return diff;
  }

  /** The server resumed the stream for this table after {@code resumedPosition}. */
  void resumed(String sessionEpoch, List<ColumnInfo> cols, List<String> pk, long resumedPosition) {
    if (cols != null && pk != null) {
      columns = cols;
      primaryKey = pk;
      setSchema(cols, pk);
    }
    // the server accepted our position, so it is the truth even if it is lower than ours
    inSyncAt(sessionEpoch, resumedPosition);
    mirrors.resumed(resumedPosition);
  }

  /** Snapshot installed or stream resumed: the table is in sync at {@code at}, in the stream. */
  private void inSyncAt(String sessionEpoch, long at) {
    fromFile = false;
    synced = true;
    inStream = true;
    statusDue = true;
    epoch = sessionEpoch;
    position = at;
    snapshots.settled();
  }

  /** The table's column list changed while serving: the batches that follow use it. */
  void schemaChanged(List<ColumnInfo> cols, List<String> pk, int version) {
    if (!pk.equals(primaryKey)) {
      snapshots.rekey(pk); // a snapshot in flight is keyed anew, as the mirrors
    }
    columns = cols;
    primaryKey = pk;
    setSchema(cols, pk);
    log.info(
        "{} now has columns {} (version {})",
        table,
        cols.stream().map(ColumnInfo::name).toList(),
        version);
  }

  /** Tells every mirror the table's columns; one that cannot follow them asks for a snapshot. */
  private void setSchema(List<ColumnInfo> cols, List<String> pk) {
    String cannot = mirrors.setSchema(cols, pk);
    if (cannot != null) {
      needFresh(cannot);
    }
  }

  /** The server said whether the table is stale. */
  void status(boolean stale, String reason) {
    statusDue = false;
    mirrors.stale(stale ? reason : null);
  }

  /**
   * A batch came: a status still due after a snapshot or resume did not come, so the table is
   * followed.
   */
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
      mirrors.advance(batchPosition);
    }
  }

  /**
   * Applies this table's part of one batch, atomically per mirror; {@code captureMillis} is when
   * its newest change was written in the database (0: unknown).
   */
  void apply(List<Change> changes, long batchPosition, long captureMillis) {
    settleStatus();
    if (snapshots.inFlight()) {
      snapshots.apply(changes, batchPosition, primaryKey);
      return;
    }
    if (!inStream || batchPosition <= position) {
      log.debug(
          "batch {} for {} skipped (inStream={}, position={})",
          batchPosition,
          table,
          inStream,
          position);
      return;
    }
    List<RowChange> keyed = ChangeKeys.keyed(table, changes, primaryKey);
    mirrors.apply(keyed, batchPosition, captureMillis);
    position = batchPosition;
  }

  /**
   * The connection dropped ({@code closing}: the client closed it): a snapshot in flight is
   * discarded, synced data stays. Returns whether one was cut short.
   */
  boolean disconnected(boolean closing) {
    return snapshots.connectionEnded(closing);
  }

  /** The server refused the subscription. */
  void fail(ErrorCode code, String message) {
    snapshots.discard();
    synced = false;
    inStream = false;
    mirrors.fail(code, message);
  }

  /**
   * A server refused the connection (or TLS did): mirrors still waiting for data fail with it,
   * ready ones are stale with it until a snapshot or resume brings them up to date. What the feed
   * holds stays, for that resume.
   */
  void connectionRefused(ErrorCode code, String message) {
    mirrors.fail(code, message);
  }
}
