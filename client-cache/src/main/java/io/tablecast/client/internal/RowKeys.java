package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Normalizes primary keys so that a key from the wire and a key given by a user compare equal:
 * integral numbers become {@code Long} ({@code BigInteger} outside the long range), text stays
 * {@code String}, booleans {@code Boolean}, anything else its JSON text. A single-column key is the
 * part itself, a composite key an unmodifiable {@code List} of parts. Internal: the API layer
 * normalizes users' keys with it.
 */
public final class RowKeys {

  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private RowKeys() {}

  /** The key of a change, from its JSON array of key values. */
  static Object fromKeyArray(ArrayNode key) {
    if (key.size() == 1) {
      return part(key.get(0));
    }
    List<Object> parts = new ArrayList<>(key.size());
    for (JsonNode n : key) {
      parts.add(part(n));
    }
    return Collections.unmodifiableList(parts);
  }

  /**
   * The key of a change, equal to {@link #fromKeyArray} of its key: read from its row's bytes, by
   * the key columns of the row's own layout, when it has a row in the row form (no key values
   * decoded: this runs for every change a mirror applies), else from its key's values.
   */
  static Object ofChange(ArrayNode key, ObjectNode after) {
    if (after instanceof PackedRow packed && packed.form() != null) {
      RowForm form = packed.form();
      Object fromBytes = fromPacked(form, packed.bytes(), form.primaryKey());
      if (fromBytes != null) {
        return fromBytes;
      }
    }
    return fromKeyArray(key);
  }

  /**
   * The key of a row image, from its primary-key columns.
   *
   * @throws IllegalArgumentException naming the missing column
   */
  static Object fromRow(ObjectNode row, List<String> primaryKey) {
    if (primaryKey.isEmpty()) {
      throw new IllegalArgumentException("table has no primary key; cannot key row " + row);
    }
    if (row instanceof PackedRow packed && packed.form() != null) {
      Object key = fromPacked(packed.form(), packed.bytes(), primaryKey);
      if (key != null) {
        return key;
      }
    }
    if (primaryKey.size() == 1) {
      return part(column(row, primaryKey.get(0)));
    }
    List<Object> parts = new ArrayList<>(primaryKey.size());
    for (String c : primaryKey) {
      parts.add(part(column(row, c)));
    }
    return Collections.unmodifiableList(parts);
  }

  /** As {@link #fromRow}, or null when the row lacks a primary-key column. */
  public static Object fromRowOrNull(ObjectNode row, List<String> primaryKey) {
    for (String c : primaryKey) {
      boolean missing =
          (row instanceof PackedRow packed && packed.form() != null)
              ? packed.form().indexOf(c) < 0
              : row.get(c) == null;
      if (missing) {
        return null;
      }
    }
    return primaryKey.isEmpty() ? null : fromRow(row, primaryKey);
  }

  /**
   * The key of the row {@code bytes} in the layout {@code form}, as {@link #fromRowOrNull} of its
   * {@link PackedRow}, which is made only when the key cannot be read from the bytes alone.
   *
   * @throws IllegalArgumentException as {@link #fromRow}
   */
  static Object fromBytesOrNull(RowForm form, byte[] bytes, List<String> primaryKey) {
    Object key = primaryKey.isEmpty() ? null : fromPacked(form, bytes, primaryKey);
    return key != null ? key : fromRowOrNull(PackedRow.of(form, bytes), primaryKey);
  }

  /**
   * The key of a row in the row form read from its bytes, without building its JSON tree (a
   * snapshot of a million rows keys a million rows); null when a part is of a kind whose key form
   * is its JSON text (a float, a JSON value) or a column is missing: the tree then decides.
   */
  private static Object fromPacked(RowForm form, byte[] bytes, List<String> primaryKey) {
    if (primaryKey.size() == 1) {
      return packedPart(form, bytes, primaryKey.get(0));
    }
    List<Object> parts = new ArrayList<>(primaryKey.size());
    for (String c : primaryKey) {
      Object part = packedPart(form, bytes, c);
      if (part == null) {
        return null;
      }
      parts.add(part);
    }
    return Collections.unmodifiableList(parts);
  }

  private static Object packedPart(RowForm form, byte[] bytes, String column) {
    int index = form.indexOf(column);
    Object v = index < 0 ? null : form.valueToJava(bytes, index);
    if (v instanceof Integer n) {
      return Long.valueOf(n);
    }
    return v instanceof Long
            || v instanceof BigInteger
            || v instanceof String
            || v instanceof Boolean
        ? v
        : null;
  }

  private static JsonNode column(ObjectNode row, String name) {
    JsonNode n = row.get(name);
    if (n == null) {
      throw new IllegalArgumentException("row has no primary-key column " + name + ": " + row);
    }
    return n;
  }

  /** One normalized key part from JSON. */
  static Object part(JsonNode n) {
    if (n.isIntegralNumber()) {
      return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
    }
    if (n.isTextual()) {
      return n.textValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    return n.toString();
  }

  /** A user-given key normalized like a key from the wire. */
  public static Object fromUser(Object key, int keyColumns) {
    if (keyColumns > 1 && key instanceof List<?> list) {
      List<Object> parts = new ArrayList<>(list.size());
      for (Object o : list) {
        parts.add(userPart(o));
      }
      return Collections.unmodifiableList(parts);
    }
    return userPart(key);
  }

  /** A user-given composite key normalized like a key from the wire. */
  public static Object fromUser(Object first, Object[] rest) {
    if (rest == null || rest.length == 0) {
      return userPart(first);
    }
    List<Object> parts = new ArrayList<>(rest.length + 1);
    parts.add(userPart(first));
    for (Object o : rest) {
      parts.add(userPart(o));
    }
    return Collections.unmodifiableList(parts);
  }

  static Object userPart(Object o) {
    if (o instanceof Long || o instanceof String || o instanceof Boolean) {
      return o;
    }
    if (o instanceof Integer || o instanceof Short || o instanceof Byte) {
      return ((Number) o).longValue();
    }
    if (o instanceof BigInteger b) {
      return b.compareTo(LONG_MIN) >= 0 && b.compareTo(LONG_MAX) <= 0 ? (Object) b.longValue() : b;
    }
    if (o instanceof BigDecimal d) {
      return d.toPlainString(); // as databases print decimals: 1000, not 1E+3
    }
    if (o instanceof CharSequence || o instanceof java.util.UUID) {
      return o.toString();
    }
    if (o instanceof Enum<?> e) {
      return e.name();
    }
    return o == null ? null : o.toString();
  }
}
