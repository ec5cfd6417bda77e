package io.tablecast.server.image;

import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.protocol.row.RowTable;
import io.tablecast.protocol.row.RowTableLoad;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.KeyMoves;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The current rows of one cached table in the row form of its version ({@link RowForm}), found by
 * key in a {@link RowTable}: one immutable byte array per row and a primitive index, no object
 * graph per row. Rows are compared byte for byte (the row form has one encoding per value). Owned
 * by the hub thread; a snapshot may share the rows with another thread after copying the row list.
 */
public final class TableImage {

  private final TableSchema schema;

  /** The column list's version in this run: 1 at start, one more at each ALTER TABLE followed. */
  private final int version;

  private final RowForm form;
  private final RowTable rows;

  /**
   * Its rows were converted from another layout ({@link #withSchema}) and the sessions still hold
   * them in that one: the next whole read of the table sends every row, not only those whose
   * converted bytes differ. Written and read by the hub thread.
   */
  private boolean converted;

  /**
   * The last description found equal to {@link #schema} though another instance (see {@link
   * #holds}).
   */
  private TableSchema sameLayout;

  /** An empty image of {@code schema}'s table (its column list's version 1). */
  public TableImage(TableSchema schema) {
    this(schema, 1, 0);
  }

  /**
   * An empty image of {@code schema}'s table whose key index holds {@code expectedRows} rows
   * without growing: the table's snapshot puts them with no rehash of the rows put before ({@link
   * #fitIndex} once loaded, in case the estimate was far too high).
   */
  public TableImage(TableSchema schema, int expectedRows) {
    this(schema, 1, expectedRows);
  }

  /**
   * Checks that {@code row} is a row of this image's row form, without adding it.
   *
   * @throws io.tablecast.protocol.row.MalformedRowException when it is not
   */
  public void check(byte[] row) {
    form.check(row);
  }

  /**
   * A load of snapshot rows into this image, a run at a time ({@link RowTableLoad}): each row given
   * already {@linkplain #check checked}; about {@code expectedRows} of them (0 when unknown).
   */
  public RowTableLoad load(long expectedRows) {
    return new RowTableLoad(rows, expectedRows);
  }

  /** Shrinks the key index when it is four times what the rows need or more. */
  public void fitIndex() {
    rows.fit();
  }

  private TableImage(TableSchema schema, int version, int expectedRows) {
    this.schema = schema;
    this.version = version;
    this.form = new RowForm(schema.columns(), schema.primaryKey());
    this.rows = new RowTable(expectedRows);
    this.sameLayout = schema;
  }

  /** The table as the image holds it: columns and primary key. */
  public TableSchema schema() {
    return schema;
  }

  /** The row form of the image's rows: the table version's columns and key. */
  public RowForm form() {
    return form;
  }

  /** The column list's version (see {@code schema_changed} in docs/PROTOCOL.md). */
  public int version() {
    return version;
  }

  /** The table's qualified name. */
  public String name() {
    return schema.id().qualified();
  }

  /** How many rows the image holds. */
  public int size() {
    return rows.size();
  }

  /** Bytes the image holds on the heap beside its rows' arrays: the key index. */
  public long indexBytes() {
    return rows.indexBytes();
  }

  /**
   * Bytes the rows' arrays take on the heap: each row's length plus a 16-byte array header, rounded
   * up to 8 bytes (a 64-bit JVM with compressed references). Walks every row: for the operations
   * console, which asks at most every few seconds, not for a hot path.
   */
  public long rowBytes() {
    long[] total = {0};
    rows.forEach(row -> total[0] += (16L + row.length + 7) & ~7L);
    return total[0];
  }

  /**
   * Whether rows written in the row form of {@code layout} are rows of this image: the same
   * description of the table (columns and primary key). Cheap for the instance the image was made
   * from, or the one last found equal.
   */
  @SuppressWarnings("ReferenceEquality") // identity first: the fast path this method exists for
  public boolean holds(TableSchema layout) {
    if (layout == sameLayout || layout == schema) {
      return true;
    }
    if (layout.equals(schema)) {
      sameLayout = layout;
      return true;
    }
    return false;
  }

  /**
   * Adds a snapshot row, in this image's row form.
   *
   * @throws io.tablecast.protocol.row.MalformedRowException when the bytes are not a row of that
   *     form
   */
  public void put(byte[] row) {
    form.check(row);
    rows.put(row);
  }

  /** The row with the given key (in the row form), or null. */
  public byte[] get(byte[] key) {
    return rows.get(key);
  }

  /**
   * The rows as they are now, an immutable list that later changes do not touch ({@link
   * RowTable#rows()}: it costs the hub thread a copy of the index's table of pages now, and later
   * changes a copy of each page they write to); the rows themselves are shared and immutable.
   */
  public List<byte[]> copyRows() {
    return rows.rows();
  }

  /**
   * Applies one event, written in this image's row form ({@link #holds}), and returns the changes
   * it makes: none when it changes nothing, else one, or two when an UPDATE moved its row onto a
   * key another row held ({@link #apply(RowEvent, KeyMoves, List)}). The operation and the old row
   * come from the image, not the event: a MySQL/MariaDB source reports a changed row as its state
   * now and a removed row by its key alone; an event that repeats the image's state changes
   * nothing, unless its row before is the image's own row ({@link #diff} with every row: the
   * sessions hold the row in an older layout).
   *
   * @throws io.tablecast.protocol.row.MalformedRowException when the event's row is not a row of
   *     the image's form (the image is left unchanged)
   */
  public List<RowChange> apply(RowEvent event) {
    List<RowChange> out = new ArrayList<>(2);
    apply(event, null, out);
    return out;
  }

  /**
   * As {@link #apply(RowEvent)}, within a batch, adding the changes to {@code out}: {@code moves}
   * keeps the rows that share a key within the batch (a PostgreSQL DEFERRABLE key) and decides what
   * a key shows when a change leaves it ({@link KeyMoves}). Null: every change takes its key away.
   *
   * <p>What is said follows what the key shows, so that sessions that filter or coalesce changes
   * can follow it: an UPDATE that moves its row onto a key another row holds says a DELETE of that
   * row first (before, a filtered session dropped the UPDATE when the moved row was outside its
   * filter and kept the other row on the key); a change that takes a row off a key where it hid
   * another says an INSERT of that one after it.
   */
  public void apply(RowEvent event, KeyMoves moves, List<RowChange> out) {
    if (event instanceof RowEvent.Upsert u) {
      byte[] after = u.row();
      form.check(after);
      byte[] before = u.before();
      byte[] old = null;
      byte[] from = null; // the old key of an UPDATE that moved the row to another key
      byte[] shownAgain = null;
      if (before != null && !sameKey(before, after)) {
        from = form.keyOf(before);
        byte[] held = rows.get(from);
        byte[] shows = moves == null ? null : moves.leave(from, held, before);
        if (shows == null) {
          old = held == null ? null : rows.remove(from);
        } else if (shows != held) { // the row leaving had hidden another there
          rows.put(shows);
          old = held;
          shownAgain = shows;
        }
      } else if (before != null
          && moves != null
          && moves.any()
          && moves.changedHidden(u.key(), rows.get(u.key()), before, after)) {
        return; // a row hidden under another on its key changed: the key shows the other still
      }
      byte[] replaced = rows.put(after);
      if (moves != null && from != null) {
        moves.moved(u.key(), after, replaced);
      } else if (moves != null && before == null) {
        moves.inserted(u.key(), after, replaced); // (MySQL/MariaDB: a row's own older state)
      }
      if (old == null) {
        old = replaced;
      } else if (replaced != null) { // moved onto a key another row holds: that row is off it
        out.add(new RowChange(name(), Op.DELETE, u.key(), replaced, null));
      }
      if (old == null) {
        out.add(new RowChange(name(), Op.INSERT, u.key(), null, after));
      } else if (!Arrays.equals(old, after) || before == old) {
        // an event whose row before is the image's own (made by a whole read after an ALTER
        // TABLE, diff with everyRow) is sent even when equal: it brings the sessions' row into
        // this layout
        out.add(new RowChange(name(), Op.UPDATE, u.key(), old, after));
      }
      if (shownAgain != null) {
        out.add(new RowChange(name(), Op.INSERT, from, null, shownAgain));
      }
      return;
    }
    if (event instanceof RowEvent.Delete d) {
      byte[] held = rows.get(d.key());
      byte[] shows = moves == null ? null : moves.leave(d.key(), held, d.before());
      if (shows == null) {
        if (held != null) {
          rows.remove(d.key());
          out.add(new RowChange(name(), Op.DELETE, d.key(), held, null));
        }
      } else if (shows != held) { // the row deleted had hidden another there
        rows.put(shows);
        out.add(new RowChange(name(), Op.DELETE, d.key(), held, null));
        out.add(new RowChange(name(), Op.INSERT, d.key(), null, shows));
      }
      return;
    }
    throw new IllegalArgumentException(
        "a "
            + event.getClass().getSimpleName()
            + " event is not applied row by row ("
            + name()
            + ")");
  }

  /** Applies a {@link RowEvent.Truncate}: removes every row and returns one DELETE per row. */
  public List<RowChange> truncate() {
    List<RowChange> out = new ArrayList<>(rows.size());
    rows.forEach(row -> out.add(new RowChange(name(), Op.DELETE, form.keyOf(row), row, null)));
    rows.clear();
    return out;
  }

  /**
   * A new image of the same rows under a new description of the table (after an ALTER TABLE), each
   * row converted to the new row form through its JSON form: a column gone is dropped, a new one is
   * NULL, a value that does not fit its column's new kind is NULL; a row whose key cannot be formed
   * any more is left out. No row of the old layout is kept under the new form. The whole read of
   * the table that follows compares with this image and repairs what the conversion could not know.
   */
  TableImage withSchema(TableSchema newSchema) {
    TableImage copy = new TableImage(newSchema, version + 1, rows.size());
    copy.converted = true;
    LayoutConversion conversion = new LayoutConversion(newSchema, copy.form);
    RowTableLoad load = copy.load(rows.size());
    rows.forEach(
        row -> {
          byte[] converted = conversion.row(form.toNode(row));
          if (converted != null) {
            load.add(converted);
          }
        });
    load.finish();
    return copy;
  }

  /**
   * An event written in another layout of this table ({@code other}: a version the capture read
   * earlier in the same batch, before it followed an ALTER TABLE), its rows converted to this
   * image's form as {@link #withSchema} converts rows; null when its key cannot be formed here (the
   * whole read of the table that follows the ALTER TABLE repairs the row).
   */
  public RowEvent converted(RowEvent event, RowForm other) {
    return new LayoutConversion(schema, form).event(name(), event, other);
  }

  /**
   * The events that turn this image into exactly {@code actual} (every row of the table read at the
   * image's position, in its row form): DELETE for keys only here, UPDATE for rows that differ (for
   * every row, with {@code everyRow}), INSERT for keys only there. Does not change the image.
   */
  ReadDifferences diff(List<byte[]> actual, boolean everyRow) {
    return ImageDiff.of(this, rows, actual, everyRow);
  }

  /**
   * Whether its rows were converted from another layout and not yet sent in this one: the sessions
   * hold them as they were (a new column missing, a retyped value in its old type), and a read that
   * sends the table must send every row.
   */
  boolean converted() {
    return converted;
  }

  /** Every row was sent in this layout. */
  void sentInLayout() {
    converted = false;
  }

  /**
   * A reconciliation pass over this image begins: from now on the image marks the rows the pass
   * sees, those a range read finds ({@link #markAndGet}) and every row a change puts.
   */
  void startPass() {
    rows.startMarking();
  }

  /** The pass ended or was abandoned: its marks are dropped. */
  void endPass() {
    rows.stopMarking();
  }

  /**
   * The row of {@code key}, or null, marked seen by the reconciliation pass under way ({@link
   * #startPass}).
   */
  byte[] markAndGet(byte[] key) {
    return rows.markAndGet(key);
  }

  /**
   * A delete for each row of the image the pass under way did not mark: rows the table no longer
   * holds. A scan of the index's references, no row read but those deleted. Does not change the
   * image.
   */
  List<RowEvent> deletesUnmarked() {
    return ImageDiff.unmarked(this, rows);
  }

  /** Whether two rows of this form have the same key, compared in place. */
  static boolean sameKey(byte[] a, byte[] b) {
    int as = RowForm.keyStart(a);
    int bs = RowForm.keyStart(b);
    int length = RowForm.keyLength(a);
    return length == RowForm.keyLength(b) && Arrays.equals(a, as, as + length, b, bs, bs + length);
  }
}
