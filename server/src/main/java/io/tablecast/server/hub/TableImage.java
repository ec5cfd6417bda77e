package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.RowEvent;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The current rows of one cached table, keyed by primary key. Owned by the hub thread; the
 * stored rows are never mutated after they are put, so a snapshot may share them with another
 * thread after copying the row list.
 */
public final class TableImage {

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private final TableSchema schema;
  /** The column list's version in this run: 1 at start, one more at each ALTER TABLE followed. */
  private final int version;
  private final Map<ArrayNode, ObjectNode> rows = new LinkedHashMap<>();

  public TableImage(TableSchema schema) {
    this(schema, 1);
  }

  private TableImage(TableSchema schema, int version) {
    this.schema = schema;
    this.version = version;
  }

  public TableSchema schema() {
    return schema;
  }

  /** The column list's version (see {@code schema_changed} in docs/PROTOCOL.md). */
  int version() {
    return version;
  }

  public String name() {
    return schema.id().qualified();
  }

  public int size() {
    return rows.size();
  }

  /** Adds a snapshot row. */
  public void put(ObjectNode row) {
    rows.put(keyOf(row), row);
  }

  /** The row with the given (normalized) key, or null. */
  ObjectNode get(ArrayNode key) {
    return rows.get(key);
  }

  /** A copy of the row list; the rows themselves are shared and immutable. */
  List<ObjectNode> copyRows() {
    return new ArrayList<>(rows.values());
  }

  /**
   * Applies one event to the image and returns the wire form of the change, or null when it changes
   * nothing. The operation and the old row come from the image, not the event: a MySQL/MariaDB
   * source reports a changed row as its state now (an INSERT, whether the row is new or not) and a
   * removed row by its key alone; an event that repeats the image's state changes nothing.
   *
   * @throws IllegalArgumentException when the event lacks the row image its operation needs
   */
  Message.Change apply(RowEvent event) {
    switch (event.op()) {
      case INSERT:
      case UPDATE: {
        ObjectNode after = require(event.after(), event, "after");
        ArrayNode key = keyOf(after);
        ObjectNode old = null;
        if (event.before() != null) { // an UPDATE that may have changed the key
          ArrayNode oldKey = keyOf(event.before());
          if (!oldKey.equals(key)) {
            old = rows.remove(oldKey);
          }
        }
        ObjectNode replaced = rows.put(key, after);
        if (old == null) {
          old = replaced;
        }
        if (old == null) {
          return new Message.Change(event.table(), Op.INSERT, key, null, after);
        }
        return old.equals(after) ? null : new Message.Change(event.table(), Op.UPDATE, key, old, after);
      }
      case DELETE: {
        ObjectNode before = require(event.before(), event, "before");
        ArrayNode key = keyOf(before);
        ObjectNode old = rows.remove(key);
        return old == null ? null : new Message.Change(event.table(), Op.DELETE, key, old, null);
      }
      default:
        throw new IllegalArgumentException("unknown operation " + event.op() + " for table " + name());
    }
  }

  /**
   * Applies a {@link RowEvent#truncate} event: removes every row and returns one DELETE per row,
   * in the image's order.
   */
  List<Message.Change> truncate() {
    List<Message.Change> out = new ArrayList<>(rows.size());
    for (Map.Entry<ArrayNode, ObjectNode> e : rows.entrySet()) {
      out.add(new Message.Change(name(), io.tablecast.protocol.Op.DELETE, e.getKey(), e.getValue(), null));
    }
    rows.clear();
    return out;
  }

  /** A new image of the same rows under a new description of the table (after an ALTER TABLE). */
  TableImage withSchema(TableSchema newSchema) {
    TableImage copy = new TableImage(newSchema, version + 1);
    for (ObjectNode row : rows.values()) {
      try {
        copy.put(row);
      } catch (IllegalArgumentException e) {
        // the key column is gone: the row cannot be addressed any more; the diff re-inserts the table's rows
      }
    }
    return copy;
  }

  /**
   * The events that turn this image into exactly {@code actual} (every row of the table read at
   * the image's position): DELETE for keys only here, UPDATE for rows that differ, INSERT for
   * keys only there. Does not change the image.
   */
  List<RowEvent> diff(List<ObjectNode> actual) {
    java.util.Set<ArrayNode> keys = new java.util.HashSet<>();
    List<RowEvent> upserts = upserts(actual, keys);
    List<RowEvent> out = deletesExcept(keys);
    out.addAll(upserts);
    return out;
  }

  /**
   * INSERT for each row of {@code actual} (rows of the table read at the image's position) whose
   * key the image lacks, UPDATE for each it holds differently; adds every row's key to {@code keys}.
   * Does not change the image.
   */
  List<RowEvent> upserts(List<ObjectNode> actual, java.util.Set<ArrayNode> keys) {
    List<RowEvent> out = new ArrayList<>();
    for (ObjectNode row : actual) {
      ArrayNode key = keyOf(row);
      keys.add(key);
      ObjectNode have = rows.get(key);
      if (have == null) {
        out.add(new RowEvent(name(), io.tablecast.protocol.Op.INSERT, null, row));
      } else if (!sameRow(have, row)) {
        out.add(new RowEvent(name(), io.tablecast.protocol.Op.UPDATE, have, row));
      }
    }
    return out;
  }

  /** DELETE for each row of the image whose key is not in {@code keys}. Does not change the image. */
  List<RowEvent> deletesExcept(java.util.Set<ArrayNode> keys) {
    List<RowEvent> out = new ArrayList<>();
    for (Map.Entry<ArrayNode, ObjectNode> e : rows.entrySet()) {
      if (!keys.contains(e.getKey())) {
        out.add(new RowEvent(name(), io.tablecast.protocol.Op.DELETE, e.getValue(), null));
      }
    }
    return out;
  }

  /** Equal columns and values; numbers compare by value (an int and a long of the same value are equal). */
  static boolean sameRow(ObjectNode a, ObjectNode b) {
    return a.equals(SAME_VALUE, b);
  }

  private static final java.util.Comparator<JsonNode> SAME_VALUE = (x, y) -> {
    if (x.equals(y)) {
      return 0;
    }
    if (x.isNumber() && y.isNumber()) {
      return x.decimalValue().compareTo(y.decimalValue()) == 0 ? 0 : 1;
    }
    return 1;
  };

  private ObjectNode require(ObjectNode image, RowEvent event, String which) {
    if (image == null) {
      throw new IllegalArgumentException(event.op() + " event on table " + name() + " has no '"
          + which + "' row image");
    }
    return image;
  }

  /**
   * The primary-key values of a row in key order, integral numbers normalized to long (or
   * BigInteger beyond the long range) so that equal keys compare equal whatever their width.
   */
  ArrayNode keyOf(ObjectNode row) {
    ArrayNode key = NODES.arrayNode(schema.primaryKey().size());
    for (String column : schema.primaryKey()) {
      JsonNode value = row.get(column);
      if (value == null) {
        throw new IllegalArgumentException("row of table " + name() + " lacks primary-key column '"
            + column + "': " + row);
      }
      key.add(normalize(value));
    }
    return key;
  }

  static JsonNode normalize(JsonNode value) {
    if (value.isIntegralNumber()) {
      if (value.canConvertToLong()) {
        return NODES.numberNode(value.longValue());
      }
      BigInteger big = value.bigIntegerValue();
      if (big.compareTo(LONG_MIN) >= 0 && big.compareTo(LONG_MAX) <= 0) {
        return NODES.numberNode(big.longValue());
      }
      return NODES.numberNode(big);
    }
    return value;
  }
}
