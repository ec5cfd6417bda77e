package io.tablecast.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * A row of a generic mirror as the server sent it in protocol version 3: its row-form bytes and its
 * table version's layout, decoded on read. No map, no value objects are kept per row: each read
 * decodes the one column it asks for, passing the values before it from the nearest of a few
 * positions in the row that the first read of a later column notes ({@link RowForm#anchors}: an
 * int, held in what would otherwise be the object's padding). As a {@code Map<String, Object>}
 * (what {@link TablecastClient#mirror(String)} gives) it reads like the maps of earlier versions:
 * every column in table order, the values Jackson would read from JSON (String,
 * Integer/Long/BigInteger, Double, Boolean, null, nested maps and lists; decimals as strings),
 * unmodifiable; equal to a map of the same entries. The typed getters read a column by name or
 * index without boxing through the map. Immutable and thread-safe.
 */
public final class RowView extends AbstractMap<String, Object> {
  private final RowForm form;
  private final byte[] bytes;

  /**
   * {@link RowForm#anchors} of the bytes, computed at the first read past the first anchor; 0 until
   * then. Racy on purpose, as {@code String}'s hash: every thread computes the same value from
   * immutable bytes, and an int is written whole, so a reader sees 0 (and computes it) or the
   * value.
   */
  private int anchors;

  RowView(RowForm form, byte[] bytes) {
    this.form = form;
    this.bytes = bytes;
  }

  /** The layout of the row's table version. */
  RowForm form() {
    return form;
  }

  /** The row's bytes in that layout (not copied: never changed). */
  byte[] bytes() {
    return bytes;
  }

  /**
   * Whether {@code other} in the layout {@code otherForm} is this very row: the same columns and
   * key and the same bytes (the row form has one encoding per value).
   */
  boolean sameRow(RowForm otherForm, byte[] other) {
    return (otherForm == form
            || (otherForm.columns().equals(form.columns())
                && otherForm.primaryKey().equals(form.primaryKey())))
        && Arrays.equals(bytes, other);
  }

  /** The columns of the row's table version, in table order. */
  public List<Column> columns() {
    return WireTypes.columns(form.columns());
  }

  /** The value of column {@code index} (table order), as the map gives it. */
  public Object get(int index) {
    return form.valueToJava(bytes, index, anchorsFor(index));
  }

  /** The row's anchors, computed at the first read that would start from one; else 0. */
  private int anchorsFor(int column) {
    int a = anchors;
    if (a == 0 && form.pastFirstAnchor(column)) {
      a = form.anchors(bytes);
      anchors = a;
    }
    return a;
  }

  @Override
  public Object get(Object column) {
    int index = column instanceof String name ? form.indexOf(name) : -1;
    return index < 0 ? null : get(index);
  }

  /**
   * The value of {@code column} as a secondary index keys it: a DECIMAL as a {@code BigDecimal}
   * (numeric order, {@code 10.5} equal to {@code 10.50}), anything else as {@link #get(Object)}.
   */
  Object indexValue(String column) {
    int index = form.indexOf(column);
    if (index < 0) {
      return null;
    }
    Object v = get(index);
    return v instanceof String text && form.columns().get(index).kind() == ColumnKind.DECIMAL
        ? new BigDecimal(text)
        : v;
  }

  @Override
  public boolean containsKey(Object column) {
    return column instanceof String name && form.indexOf(name) >= 0;
  }

  @Override
  public int size() {
    return form.columns().size();
  }

  /** A text column (STRING, DECIMAL, temporal kinds, BINARY as base64), or null for NULL. */
  public String getString(String column) {
    return getString(indexOf(column));
  }

  /**
   * As {@link #getString(String)}, by the column's index in this row's {@link #columns()}.
   *
   * @throws IndexOutOfBoundsException when the row has no such column
   */
  public String getString(int index) {
    Object v = get(checkIndex(index));
    return (v == null || v instanceof String) ? (String) v : node(index).toString();
  }

  /** An integral column as a long, or null for NULL. */
  public Long getLong(String column) {
    return getLong(indexOf(column));
  }

  /**
   * As {@link #getLong(String)}, by the column's index in this row's {@link #columns()}.
   *
   * @throws IndexOutOfBoundsException when the row has no such column
   * @throws IllegalStateException when the column's value is not a long
   */
  public Long getLong(int index) {
    Object v = get(checkIndex(index));
    if (v == null || v instanceof Long) {
      return (Long) v;
    }
    if (v instanceof Integer i) {
      return Long.valueOf(i);
    }
    throw new IllegalStateException(
        "column " + name(index) + " holds " + node(index) + ", not a long");
  }

  /** A DECIMAL (or integral) column as a BigDecimal with its scale, or null for NULL. */
  public BigDecimal getDecimal(String column) {
    return getDecimal(indexOf(column));
  }

  /**
   * As {@link #getDecimal(String)}, by the column's index in this row's {@link #columns()}.
   *
   * @throws IndexOutOfBoundsException when the row has no such column
   */
  public BigDecimal getDecimal(int index) {
    BigDecimal compact = form.compactDecimal(bytes, checkIndex(index), anchorsFor(index));
    if (compact != null) {
      return compact;
    }
    Object v = get(index);
    if (v == null) {
      return null;
    }
    return v instanceof String text ? new BigDecimal(text) : node(index).decimalValue();
  }

  /** A FLOAT (or other numeric) column as a double, or null for NULL. */
  public Double getDouble(String column) {
    return getDouble(indexOf(column));
  }

  /**
   * As {@link #getDouble(String)}, by the column's index in this row's {@link #columns()}.
   *
   * @throws IndexOutOfBoundsException when the row has no such column
   */
  public Double getDouble(int index) {
    Object v = get(checkIndex(index));
    if (v == null || v instanceof Double) {
      return (Double) v;
    }
    return v instanceof String text ? Double.valueOf(text) : node(index).doubleValue();
  }

  /** A BOOLEAN column, or null for NULL. */
  public Boolean getBoolean(String column) {
    return getBoolean(indexOf(column));
  }

  /**
   * As {@link #getBoolean(String)}, by the column's index in this row's {@link #columns()}.
   *
   * @throws IndexOutOfBoundsException when the row has no such column
   */
  public Boolean getBoolean(int index) {
    Object v = get(checkIndex(index));
    return (v == null || v instanceof Boolean) ? (Boolean) v : node(index).booleanValue();
  }

  /**
   * The index of {@code column} in this row's {@link #columns()}, for the getters by index; -1 when
   * the row has no such column. Rows of one table version share it; after a change of the table's
   * columns, rows of the new version may place a column elsewhere: take the index of each row's
   * version (its {@link #columns()}), or read by name.
   */
  public int columnIndex(String column) {
    return form.indexOf(Objects.requireNonNull(column, "column"));
  }

  private int checkIndex(int index) {
    if (index < 0 || index >= form.columns().size()) {
      throw new IndexOutOfBoundsException(
          "no column " + index + "; the row has " + form.columns().size() + " columns");
    }
    return index;
  }

  private String name(int index) {
    return form.columns().get(index).name();
  }

  private int indexOf(String column) {
    int index = form.indexOf(Objects.requireNonNull(column, "column"));
    if (index < 0) {
      throw new IllegalArgumentException(
          "no column " + column + "; the columns are " + form.columns());
    }
    return index;
  }

  private JsonNode node(int index) {
    return form.valueToNode(bytes, index);
  }

  @Override
  public Set<Map.Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<String, Object>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < size();
          }

          @Override
          public Map.Entry<String, Object> next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(form.columns().get(i).name(), get(i));
          }
        };
      }

      @Override
      public int size() {
        return RowView.this.size();
      }
    };
  }
}
