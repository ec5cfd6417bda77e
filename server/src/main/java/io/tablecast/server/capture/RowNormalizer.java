package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.DecimalText;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.protocol.row.TextSlices;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns the JSON a database generated for one row (trigger image or snapshot row: both use the same
 * generator) into the forms of {@code docs/TYPES.md}, with the table's columns in order; the {@link
 * Dialect} turns the values its database prints its own way. {@link #encode} then writes the row
 * once in the row form of this table version ({@link #form()}): from capture on, a row travels as
 * those bytes. Thread-safe.
 */
public final class RowNormalizer {
  private static final ObjectMapper JSON = MessageCodec.jsonMapper();
  private static final JsonNodeFactory NODES = JSON.getNodeFactory();

  private final TableSchema table;
  private final ColumnValues values;
  private final RowForm form;
  private final ColumnInfo[] columns;
  private final ImageFields fields;

  /** Each column's index in table order, by name. */
  private final Map<String, Integer> columnIndex = new HashMap<>();

  public RowNormalizer(TableSchema table, Dialect dialect) {
    this.table = table;
    this.values = new ColumnValues(dialect);
    this.form = new RowForm(table.columns(), table.primaryKey());
    this.columns = table.columns().toArray(new ColumnInfo[0]);
    this.fields = new ImageFields(table);
    for (int i = 0; i < columns.length; i++) {
      columnIndex.put(columns[i].name(), i);
    }
  }

  public TableSchema table() {
    return table;
  }

  /** The row form of this table version: its columns and primary key. */
  public RowForm form() {
    return form;
  }

  /**
   * A row image as JSON text, parsed and normalized once and written in the row form; null stays
   * null.
   *
   * @throws IllegalStateException naming the column when a value does not convert to its kind
   */
  public byte[] encode(String json) {
    return json == null ? null : encode(json, false);
  }

  /**
   * {@link #encode(String)} of an image whose fields are exactly this table version's columns (the
   * common case of a trigger's image); null when the image has a field that is not a column or
   * lacks one, so that the caller looks at it as a tree ({@code ALTER TABLE}, columns left out).
   *
   * @throws IllegalStateException as {@link #encode(String)}
   */
  public byte[] encodeExact(String json) {
    return encode(Objects.requireNonNull(json, "json"), true);
  }

  private byte[] encode(String json, boolean exact) {
    JsonNode[] values = new JsonNode[columns.length];
    boolean[] normalized = new boolean[columns.length];
    int fields = this.fields.read(json, values, normalized, exact);
    if (fields == ImageFields.NOT_EXACT) {
      return null;
    }
    if (fields == ImageFields.NOT_AN_OBJECT) {
      // JSON null is no row; anything else fails as before
      return exact ? null : encode(parse(json));
    }
    if (exact) {
      for (JsonNode v : values) {
        if (v == null || fields != columns.length) {
          return null; // a column missing (or a field twice)
        }
      }
    }
    return encoded(values, normalized, null);
  }

  /**
   * A row read as one text per column of this table version, in table order (a {@link
   * SnapshotRead.Shape#COLUMN_TEXTS} read), in the row form: each text taken as the JSON generator
   * prints that value, so that the bytes equal {@link #encode(String)}'s of the row's JSON. An
   * INTEGER, DECIMAL, FLOAT or TIMESTAMP_TZ (MySQL's {@code UNIX_TIMESTAMP}) text that is a valid
   * JSON number is that number, any other (NaN, Infinity, money, a PostgreSQL date-time) the
   * string; a BOOLEAN's {@code t}/{@code true} or {@code f}/{@code false} the boolean, a number
   * (MySQL's TINYINT(1)) that number; other kinds the string; null is NULL.
   *
   * @throws IllegalArgumentException when the texts are not one per column
   * @throws IllegalStateException as {@link #encode(String)}
   */
  public byte[] encodeColumnTexts(String[] texts) {
    if (texts.length != columns.length) {
      throw new IllegalArgumentException(
          texts.length + " column texts for the " + columns.length + " columns of " + table.id());
    }
    JsonNode[] values = new JsonNode[columns.length];
    boolean[] normalized = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      String text = texts[i];
      ColumnKind kind = columns[i].kind();
      if (text == null) {
        values[i] = NODES.nullNode();
        normalized[i] = true;
      } else if (RowForm.writesText(kind, text)) {
        normalized[i] = true; // nearly every value: written from its text, no node
      } else if (kind == ColumnKind.DECIMAL && DecimalText.isCompactPlain(text)) {
        // a JSON number, and as encode(String) reads one: printed plain, its own normal form
        values[i] = NODES.textNode(text);
        normalized[i] = true;
      } else if (kind == ColumnKind.FLOAT && JsonNumbers.isNumber(text)) {
        values[i] = JsonNumbers.floatNode(text);
      } else if ((kind == ColumnKind.INTEGER
              || kind == ColumnKind.DECIMAL
              || kind == ColumnKind.TIMESTAMP_TZ) // MySQL: UNIX_TIMESTAMP(col)
          && JsonNumbers.isNumber(text)) {
        values[i] = JsonNumbers.node(text);
      } else if (kind == ColumnKind.BOOLEAN && JsonNumbers.isBoolean(text)) {
        values[i] = NODES.booleanNode(text.charAt(0) == 't');
      } else if (kind == ColumnKind.BOOLEAN && JsonNumbers.isNumber(text)) {
        values[i] = JsonNumbers.node(text); // MySQL's TINYINT(1): any number, true unless 0
      } else {
        values[i] = NODES.textNode(text);
      }
    }
    return encoded(values, normalized, texts);
  }

  /**
   * {@link #encodeColumnTexts(String[])} of a row read as UTF-8 slices ({@code COPY}): written
   * straight from its bytes when every text is one the row form takes as it is (nearly every row of
   * a table of integers, plain decimals, strings and booleans), else made strings first.
   *
   * @throws IllegalArgumentException when the texts are not one per column
   * @throws IllegalStateException as {@link #encode(String)}
   */
  public byte[] encodeColumnTexts(TextSlices row) {
    byte[] direct = form.encodeTexts(row);
    return direct != null ? direct : encodeColumnTexts(row.texts());
  }

  /**
   * The row form of one value per column as the JSON generator printed them (null for a column the
   * image lacks), each converted to its kind unless already {@code normalized}; with {@code texts},
   * a column without a value is written from its text ({@link RowForm#encodeTexts}).
   */
  private byte[] encoded(JsonNode[] values, boolean[] normalized, String[] texts) {
    for (int i = 0; i < columns.length; i++) {
      if (!normalized[i]) {
        JsonNode v = values[i];
        values[i] = v == null || v.isNull() ? NODES.nullNode() : converted(columns[i], v);
      }
    }
    try {
      return texts == null ? form.encode(values) : form.encodeTexts(texts, values);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "cannot write a row of " + table.id() + " in its row form: " + e.getMessage(), e);
    }
  }

  /**
   * A parsed row image, normalized once and written in the row form; columns missing from it are
   * NULL; a null image stays null.
   *
   * @throws IllegalStateException naming the column when a value does not convert to its kind, or a
   *     key column is missing or NULL
   */
  public byte[] encode(JsonNode raw) {
    ObjectNode row = normalize(raw);
    if (row == null) {
      return null;
    }
    try {
      return form.encode(row);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "cannot write a row of " + table.id() + " in its row form: " + e.getMessage(), e);
    }
  }

  /**
   * The primary key in the row form of an image holding at least the key columns (a whole row, or
   * the key-only image a MySQL trigger records); only the key columns are normalized. Equal to
   * {@link RowForm#keyOf} of the whole row {@link #encode} writes.
   *
   * @throws IllegalStateException naming the column when a key column is missing, NULL or does not
   *     convert
   */
  public byte[] key(JsonNode raw) {
    ObjectNode key = NODES.objectNode();
    for (String column : table.primaryKey()) {
      JsonNode v = raw.get(column);
      if (v != null && !v.isNull()) {
        key.set(column, converted(table.column(column), v));
      }
    }
    try {
      return form.encodeKey(key);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the key of a row of " + table.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * A key image as a MySQL trigger records it: the primary key in the row form, and each key
   * column's value as text to bind in a read by key ({@link #bindText}).
   */
  @SuppressWarnings("ArrayRecordComponent") // read once by the tail, never compared as a record
  public record KeyImage(byte[] key, List<String> bound) {}

  /**
   * {@link #key} of the image {@code json} holds, and its values to bind, read from the text
   * without a tree (this runs for every changed row MySQL's tail reads); null when the image lacks
   * a key column (a trigger made for an older key) or is no JSON object.
   *
   * @throws IllegalStateException as {@link #key}, and naming the image when it is not valid JSON
   */
  public KeyImage keyImage(String json) {
    List<String> key = table.primaryKey();
    JsonNode[] values = new JsonNode[columns.length];
    int found = fields.keyValues(json, values);
    if (found < key.size()) {
      return null;
    }
    List<String> bound = new ArrayList<>(key.size());
    JsonNode[] converted = new JsonNode[columns.length];
    for (String name : key) {
      int column = columnIndex.get(name);
      JsonNode v = values[column];
      if (!v.isNull()) {
        converted[column] = converted(columns[column], v);
        bound.add(bindText(v));
      }
    }
    try {
      return new KeyImage(form.encodeKey(converted), bound);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the key of a row of " + table.id() + ": " + e.getMessage(), e);
    }
  }

  /**
   * A key value as the trigger printed it, as text to bind where the column is compared with it: a
   * number plain, a boolean as 1 or 0, anything else as its text.
   */
  private static String bindText(JsonNode v) {
    return v.isNumber()
        ? v.decimalValue().toPlainString()
        : v.isBoolean() ? (v.asBoolean() ? "1" : "0") : v.asText();
  }

  /** Parses JSON text (an outbox image) without normalizing it. */
  public JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "image of " + table.id() + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Normalizes a parsed row image; columns missing from it become null. */
  public ObjectNode normalize(JsonNode raw) {
    if (raw == null || raw.isNull()) {
      return null;
    }
    ObjectNode out = NODES.objectNode();
    for (ColumnInfo c : columns) {
      JsonNode v = raw.get(c.name());
      out.set(c.name(), v == null || v.isNull() ? NODES.nullNode() : converted(c, v));
    }
    return out;
  }

  /** {@link ColumnValues#value}, failing with the table, column, type and value named. */
  private JsonNode converted(ColumnInfo c, JsonNode v) {
    try {
      return values.value(c, v);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot convert "
              + table.id()
              + "."
              + c.name()
              + " ("
              + c.dbType()
              + ") value "
              + v
              + " to "
              + c.kind()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
