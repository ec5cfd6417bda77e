package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the session needs of one mirror: the stream's snapshots, batches and table news, in wire
 * terms (JSON row images, {@link ColumnInfo}, {@link ErrorCode}). The API layer implements it and
 * turns them into rows of the mirror's type. Every method but {@link #table()} and {@link
 * #isReady()} is called on the connection's event loop only. Internal.
 */
public interface MirrorSink {

  /**
   * One change of a row within a batch, keyed already.
   *
   * @param key the row's normalized key
   * @param oldKey the row's previous key when an update changed its primary key, else null
   * @param after the row after the change, or null when it was deleted
   */
  record RowChange(Object key, Object oldKey, ObjectNode after) {}

  /**
   * What a snapshot changed in a mirror that held rows before (zero for a first snapshot).
   *
   * @param inserted rows whose key was new
   * @param updated rows whose image changed
   * @param deleted rows whose key the snapshot lacked
   */
  record SnapshotDiff(int inserted, int updated, int deleted) {

    /** A first snapshot: nothing to compare with. */
    public static final SnapshotDiff NONE = new SnapshotDiff(0, 0, 0);
  }

  /**
   * A mirror's own copy of a snapshot in flight, each row mapped to the mirror's row type as it
   * arrives (and as the changes of later batches replace it), so that the row's bytes need not wait
   * for the snapshot's end; swapped into the mirror at the end, atomically, as {@link #install}
   * would. Event loop only.
   */
  interface MappedSnapshot {

    /** Adds or replaces the row of {@code key} (normalized). */
    void put(Object key, ObjectNode row);

    /**
     * As {@link #put(Object, ObjectNode)}, for the row {@code bytes} in the layout {@code form} (a
     * snapshot chunk's row, not made an object by the decoder).
     */
    default void put(Object key, RowForm form, byte[] bytes) {
      put(key, PackedRow.of(form, bytes));
    }

    /** Removes the row of {@code key}, if held. */
    void remove(Object key);

    /**
     * Makes room for {@code rows} rows at once, once the snapshot announcing them has been priced
     * against the heap ({@link SnapshotSizing}): held in an index of the capacity the server's
     * image has for as many rows, they arrive in its slot order slot after slot.
     */
    void reserve(long rows);

    /** The rows held. */
    int size();

    /**
     * Heap bytes of one row object itself, its header and fields, without the objects they refer to
     * (about: a 64-bit JVM with compressed references), to size the snapshot by.
     */
    long objectBytes();

    /**
     * Replaces every row of the mirror with the rows held, at {@code position}, atomically, as
     * {@link MirrorSink#install} does with the same rows; the copy is used up.
     */
    SnapshotDiff install(long position);
  }

  /** The qualified table name. */
  String table();

  /**
   * The rows and columns the mirror holds of its table, as a subscribe asks for them; null for all
   * (every mirror of a table has the same).
   */
  default io.tablecast.protocol.Message.Shape shape() {
    return null;
  }

  /** True once the mirror holds its table (and until its client is closed). */
  boolean isReady();

  /**
   * The table's columns and primary key, at a snapshot or resume or when they change while served.
   *
   * @return null, or why the mirror's rows could not follow a new primary key (a typed row lacking
   *     a property for a key column): the table needs a fresh snapshot
   */
  String setSchema(List<ColumnInfo> columns, List<String> primaryKey);

  /**
   * True when the mirror keeps a row of the row form as a view of the row's own bytes (a generic
   * mirror), false when it maps each row to an object of its own (a typed mirror): what a snapshot
   * costs this client's heap ({@code SnapshotSizing}).
   */
  boolean keepsRowBytes();

  /**
   * True for a mirror that holds the whole table; false for a near cache, which holds the rows it
   * loaded with {@link ServerSession#fetch} and keeps them current from the batches (its table is
   * subscribed without rows when no other mirror needs them).
   */
  default boolean holdsWholeTable() {
    return true;
  }

  /** A snapshot of the table began or received rows: so many of the announced rows are in. */
  void snapshotProgress(long rowsReceived, long rowsExpected);

  /** Replaces every row with {@code rows} (by normalized key) at {@code position}, atomically. */
  SnapshotDiff install(Map<Object, ObjectNode> rows, long position);

  /**
   * A copy of the snapshot beginning now, of about {@code expectedRows} rows, into which this
   * mirror maps each row as it arrives (a typed mirror); null, the default, when the mirror takes
   * the snapshot's rows at its end through {@link #install}, the rows waiting until then.
   */
  default MappedSnapshot mapsOnArrival(long expectedRows) {
    return null;
  }

  /**
   * Applies one transaction's changes of this table atomically, at {@code position}; {@code
   * captureMillis} is when the database wrote its newest change (epoch ms, the database's clock; 0
   * when unknown).
   */
  void apply(List<RowChange> changes, long position, long captureMillis);

  /** The stream moved to {@code position} without changing this table. */
  void advance(long position);

  /** The server said whether the table is stale ({@code reason}) or followed (null). */
  void stale(String reason);

  /**
   * The server (or TLS) refused the table or the connection: {@code code} is null when not the
   * server's.
   */
  void fail(ErrorCode code, String message);

  /**
   * The table's snapshot does not fit in this client's heap ({@code message} names the table, the
   * memory and {@code -Xmx}): it was dropped; a mirror not ready fails, a ready one keeps its rows
   * and is stale.
   */
  void tooLarge(String message);

  /**
   * The rows held, as JSON images by key, to seed another mirror of the same table; null when its
   * rows do not hold every column (a typed row type without a property for one): the new mirror
   * then needs a fresh snapshot of the table.
   */
  Map<Object, ObjectNode> images();

  /**
   * Where the rows a mirror holds from its file stand (a warm restart: read and installed when the
   * mirror was created, before it was attached), handed over once; null when none.
   */
  default MirrorFile.Header takeRestored() {
    return null;
  }

  /**
   * A snapshot or resume brought the mirror up to date: rows it holds from its file are current now
   * (their staleness ends; what the server says of the table is told by {@link #stale}).
   */
  default void caughtUp() {}

  /** The file the mirror is saved to; null when it is not saved. Any thread. */
  default Path file() {
    return null;
  }

  /** The name of the mirror's row type, written in its file. */
  default String rowTypeName() {
    return Map.class.getName();
  }

  /**
   * The rows as they are now, to be written to {@link #file()} by another thread (the rows are
   * immutable); null when there is nothing to save that would be right to load later (rows that
   * could not be mapped). Event loop only.
   */
  default MirrorFile.Rows rowsToSave() {
    return null;
  }
}
