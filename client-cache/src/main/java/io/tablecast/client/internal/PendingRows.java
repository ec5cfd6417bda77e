package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * A snapshot's rows while it arrives, by normalized key, holding per row only what the mirrors will
 * keep: a row in the row form of the table's layout is held as its bytes (a {@link PackedRow} is
 * made again, around the same bytes, when the mirrors read it), in a {@link RowIndex} (an integral
 * key as a primitive {@code long}). About the row's bytes plus 12-24 bytes a row, against about 130
 * more for a map entry, a boxed key and the row's two wrapper objects: what lets a table of several
 * million rows arrive beside the mirror it replaces. Rows of another form (a version-2 server's
 * JSON trees) are held as they came. Read by {@link MirrorSink#install} through the {@link Map}
 * view; confined to the connection's event loop. Internal.
 */
public final class PendingRows extends AbstractMap<Object, ObjectNode> {
  private final RowIndex<Object> rows;

  /** The layout of the rows held as bytes; null until the first such row. */
  private RowForm form;

  /** Sized as {@link RowIndex#forSnapshot}, until {@link #reserve}d. */
  PendingRows(long expectedRows) {
    this.rows = RowIndex.forSnapshot(expectedRows);
  }

  /** See {@link MirrorSink.MappedSnapshot#reserve}. */
  void reserve(long rows) {
    this.rows.reserve(rows);
  }

  /** The slots of the index (tests). */
  int capacity() {
    return rows.capacity();
  }

  /** Adds or replaces the row of {@code key}; returns the row it replaced, or null. */
  @Override
  public ObjectNode put(Object key, ObjectNode row) {
    if (row instanceof PackedRow packed && packed.form() != null) {
      if (form == null) {
        form = packed.form();
      }
      if (packed.form() == form) {
        return row(rows.put(key, packed.bytes()));
      }
    }
    return row(rows.put(key, row));
  }

  /** What a mirror makes of each row held: one method per form a row is held in. */
  public interface Mapper<W> {
    /**
     * The row {@code bytes} in the layout {@code form} (kept: not copied), or null to leave out.
     */
    W bytes(Object key, RowForm form, byte[] bytes);

    /** A row held as it came (a version-2 server's tree), or null to leave out. */
    W tree(Object key, ObjectNode row);
  }

  /** As {@link #put}, for the row {@code bytes} in the layout {@code form} (held as they are). */
  void put(Object key, RowForm form, byte[] bytes) {
    if (this.form == null) {
      this.form = form;
    }
    rows.put(key, form == this.form ? bytes : PackedRow.of(form, bytes));
  }

  /**
   * The rows as a mirror's index: each row (key boxed) replaced by what {@code f} makes of it, or
   * left out when that is null, slot for slot ({@link RowIndex#mapped}); a row held as bytes is
   * given as its bytes, without a {@link PackedRow} made around them. These rows are unchanged.
   */
  public <W> RowIndex<W> mapped(Mapper<W> f) {
    RowForm bytesForm = form;
    return rows.mapped(
        (key, held) ->
            held instanceof byte[] bytes
                ? f.bytes(key, bytesForm, bytes)
                : f.tree(key, (ObjectNode) held));
  }

  @Override
  public ObjectNode remove(Object key) {
    return key == null ? null : row(rows.remove(key));
  }

  @Override
  public int size() {
    return rows.size();
  }

  @Override
  public ObjectNode get(Object key) {
    return key == null ? null : row(rows.get(key));
  }

  private ObjectNode row(Object held) {
    return held instanceof byte[] bytes ? PackedRow.of(form, bytes) : (ObjectNode) held; // or null
  }

  @Override
  public Set<Map.Entry<Object, ObjectNode>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return rows.size();
      }

      @Override
      public Iterator<Map.Entry<Object, ObjectNode>> iterator() {
        Iterator<Map.Entry<Object, Object>> held = rows.entries();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return held.hasNext();
          }

          @Override
          public Map.Entry<Object, ObjectNode> next() {
            Map.Entry<Object, Object> e = held.next();
            return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), row(e.getValue()));
          }
        };
      }
    };
  }
}
