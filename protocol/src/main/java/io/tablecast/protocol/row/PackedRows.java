package io.tablecast.protocol.row;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The rows of one snapshot chunk in the row form, as a frame brings them: their bytes, and the
 * layout of their table, bound to all of them at once by the connection's decoder ({@link #bind}).
 * Reads as a list of {@link PackedRow}s, each made when read, around the same bytes, for code that
 * takes a chunk's rows as JSON objects; a client loading a snapshot reads the bytes ({@link
 * #bytes(int)}) and makes no object per row. Unmodifiable; equal to any list of equal rows.
 */
public final class PackedRows extends AbstractList<ObjectNode> implements RandomAccess {
  private final byte[][] rows;
  private volatile RowForm form;

  private PackedRows(RowForm form, byte[][] rows) {
    this.form = form;
    this.rows = rows;
  }

  /** Rows of {@code form} (null: to be bound by the decoder); the arrays are not copied. */
  public static PackedRows of(RowForm form, List<byte[]> rows) {
    return new PackedRows(form, rows.toArray(new byte[0][]));
  }

  /** The layout of the rows' table version, or null while unbound. */
  public RowForm form() {
    return form;
  }

  /** The bytes of row {@code index} in its row form (not copied: do not change them). */
  public byte[] bytes(int index) {
    return rows[index];
  }

  /**
   * Gives the rows the layout their table was announced with, after checking that each follows it
   * ({@link PackedRow#bind}, for all rows at once).
   *
   * @throws MalformedRowException when a row does not follow {@code form}
   * @throws IllegalStateException when the rows already have another layout
   */
  public void bind(RowForm form) {
    if (this.form == form) {
      return;
    }
    if (this.form != null) {
      throw new IllegalStateException("the rows are already bound to a layout");
    }
    for (byte[] row : rows) {
      form.check(row);
    }
    this.form = form;
  }

  @Override
  public ObjectNode get(int index) {
    return PackedRow.of(form, rows[index]);
  }

  @Override
  public int size() {
    return rows.length;
  }
}
