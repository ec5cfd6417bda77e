package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.RowChange;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The edge between the images' row form and the wire's {@link Message.Change}: a change keeps the
 * image's bytes ({@link PackedRow}, {@link PackedKey}), which a version-3 session gets as they are
 * and a WebSocket session as JSON text written from them; only what needs the JSON form (a
 * version-2 session, a row filter, a column list, coalescing) decodes a row, once, on first read.
 * Policies that drop columns get rows re-encoded in the layout of the columns they see ({@link
 * #project}).
 */
final class JsonEdge {

  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /** The layout a column list leaves of a table version's, by (form, policy). */
  private static final Map<ProjectedKey, RowForm> PROJECTED = new ConcurrentHashMap<>();

  private record ProjectedKey(RowForm form, SessionPolicy policy, String table) {}

  private JsonEdge() {}

  /** The wire form of a change of an image whose rows are in {@code form}. */
  static Message.Change change(RowForm form, RowChange c) {
    return new Message.Change(
        c.table(),
        c.op(),
        PackedKey.of(form, c.key()),
        c.before() == null ? null : PackedRow.of(form, c.before()),
        c.after() == null ? null : PackedRow.of(form, c.after()));
  }

  /**
   * A row as {@code policy} lets a session see it: the same row when the policy keeps every column;
   * else its allowed columns and primary key, in the row form of those columns.
   */
  static ObjectNode project(
      ObjectNode row, SessionPolicy policy, String table, List<String> primaryKey) {
    if (row == null || !policy.dropsColumns(table)) {
      return row;
    }
    ObjectNode projected = policy.project(table, row, primaryKey);
    if (row instanceof PackedRow packed && packed.form() != null) {
      RowForm form = projectedForm(packed.form(), policy, table);
      return PackedRow.of(form, form.encode(projected));
    }
    return projected;
  }

  /**
   * Whether {@code policy}'s row filter lets a session see {@code row} ({@link
   * SessionPolicy#matches}); of a row in the row form only the filter column is decoded.
   */
  static boolean matches(SessionPolicy policy, String table, ObjectNode row) {
    if (row instanceof PackedRow packed && packed.form() != null && policy.filterColumn() != null) {
      int column = packed.form().indexOf(policy.filterColumn());
      return policy.matchesValue(
              column < 0 ? null : packed.form().valueToNode(packed.bytes(), column))
          && policy.shapeMatches(table, row);
    }
    return policy.matches(table, row);
  }

  /**
   * As {@link #matches} for the image of a row before the batch being sent (a shape's subquery
   * reads its table as it was then).
   */
  static boolean matchedBefore(SessionPolicy policy, String table, ObjectNode row) {
    return policy.readsOtherTables(table)
        ? row != null && policy.matchedBefore(table, row)
        : matches(policy, table, row);
  }

  /** The layout of the columns {@code policy} lets a session see of {@code form}'s. */
  static RowForm projectedForm(RowForm form, SessionPolicy policy, String table) {
    if (!policy.dropsColumns(table)) {
      return form;
    }
    if (PROJECTED.size() > 10_000) {
      PROJECTED.clear(); // layouts of past table versions: recomputed when needed
    }
    return PROJECTED.computeIfAbsent(
        new ProjectedKey(form, policy, table),
        k -> {
          List<ColumnInfo> columns = policy.project(table, form.columns(), form.primaryKey());
          return new RowForm(columns, form.primaryKey());
        });
  }

  /**
   * The primary-key values of a row in its JSON form, in key order, integral numbers as long (or
   * BigInteger beyond): equal keys are equal nodes, as {@link RowForm#keyToNode} gives them. A row
   * in the row form gives its key in the row form.
   *
   * @throws IllegalArgumentException when the row lacks a key column
   */
  static ArrayNode keyOf(ObjectNode row, List<String> primaryKey) {
    if (row instanceof PackedRow packed
        && packed.form() != null
        && packed.form().primaryKey().equals(primaryKey)) {
      return PackedKey.of(packed.form(), packed.form().keyOf(packed.bytes()));
    }
    ArrayNode key = NODES.arrayNode(primaryKey.size());
    for (String column : primaryKey) {
      JsonNode value = row.get(column);
      if (value == null) {
        throw new IllegalArgumentException("row lacks primary-key column '" + column + "'");
      }
      key.add(normalize(value));
    }
    return key;
  }

  /**
   * A key value as keys hold it: integral numbers as long (or BigInteger beyond), anything else as
   * is.
   */
  static JsonNode normalize(JsonNode value) {
    if (value.isIntegralNumber()) {
      if (value.canConvertToLong()) {
        return NODES.numberNode(value.longValue());
      }
      BigInteger big = value.bigIntegerValue();
      return big.compareTo(LONG_MIN) >= 0 && big.compareTo(LONG_MAX) <= 0
          ? NODES.numberNode(big.longValue())
          : NODES.numberNode(big);
    }
    return value;
  }

  /**
   * The approximate size of a row, without encoding it, as {@link ResumeBuffer#approxBytes} counts
   * its tree (so that chunks, parts and coalescing bounds cut where they did): a row in the row
   * form counts its bytes and, per column, its name and a few bytes.
   */
  static long approxBytes(JsonNode row) {
    if (row instanceof PackedRow p && p.form() != null) {
      return 4L + p.bytes().length + namesBytes(p.form());
    }
    if (row instanceof PackedKey k) {
      return 4 + 8L * k.bytes().length;
    }
    return ResumeBuffer.approxBytes(row);
  }

  /**
   * Counted for every row: a few columns' name lengths cost less than any lookup of a count kept
   * per layout (a synchronized weak map here took a tenth of the hub thread at 5,000 changes/s).
   */
  private static int namesBytes(RowForm form) {
    int n = 0;
    for (ColumnInfo c : form.columns()) {
      n += 4 + c.name().length();
    }
    return n;
  }
}
