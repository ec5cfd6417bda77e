package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.DecimalText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The fields of a row image's JSON text, one table version's, read into one value per column for
 * {@link RowNormalizer}: by {@link FlatJsonObject} when the image is plain (nearly every trigger
 * image), else by Jackson's parser, which reads anything JSON and names what is not. Thread-safe.
 */
final class ImageFields {
  /** {@link #read}: an image with a field that is no column, read for an exact image. */
  static final int NOT_EXACT = -2;

  /** {@link #read}: the text is no JSON object. */
  static final int NOT_AN_OBJECT = -3;

  private static final ObjectMapper JSON = MessageCodec.jsonMapper();
  private static final JsonNodeFactory NODES = JSON.getNodeFactory();

  private final TableSchema table;
  private final ColumnInfo[] columns;

  /** Each column's index in table order, by name. */
  private final Map<String, Integer> columnIndex = new HashMap<>();

  /** Whether each column is in the primary key. */
  private final boolean[] keyColumns;

  /**
   * Whether the table's images are plain as a rule: not when a column is of kind JSON (JSON,
   * arrays, composites), whose values nest, so that {@link FlatJsonObject} would give up after
   * reading part of nearly every image.
   */
  private final boolean plainImages;

  /**
   * The columns in the order of the fields of the last image {@link #readFlat} found them in
   * another order than this one's (starts empty): the next image's names are compared with these
   * before they are looked up. Replaced whole, never changed, so that tail threads may share it.
   */
  private volatile int[] fieldOrder = new int[0];

  ImageFields(TableSchema table) {
    this.table = table;
    this.columns = table.columns().toArray(new ColumnInfo[0]);
    this.keyColumns = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      columnIndex.put(columns[i].name(), i);
      keyColumns[i] = table.primaryKey().contains(columns[i].name());
    }
    this.plainImages = Arrays.stream(columns).noneMatch(c -> c.kind() == ColumnKind.JSON);
  }

  /**
   * Reads the fields of the image {@code json} into {@code values} (each column's node, or its
   * decimal text when {@code normalized}; null for a column the image lacks): the number of fields
   * read, {@link #NOT_EXACT} at a field that is no column when {@code exact}, or {@link
   * #NOT_AN_OBJECT}.
   *
   * @throws IllegalStateException naming the table when the text is not valid JSON
   */
  int read(String json, JsonNode[] values, boolean[] normalized, boolean exact) {
    int fields = plainImages ? readFlat(json, values, normalized, exact) : FlatJsonObject.GAVE_UP;
    if (fields != FlatJsonObject.GAVE_UP) {
      return fields;
    }
    Arrays.fill(values, null);
    Arrays.fill(normalized, false);
    return readWithParser(json, values, normalized, exact);
  }

  /**
   * Reads the key columns' values of the image {@code json} into {@code values}: how many key
   * columns it holds, or -1 when it is no JSON object.
   *
   * @throws IllegalStateException naming the table when the text is not valid JSON
   */
  int keyValues(String json, JsonNode[] values) {
    int found = keyValuesFlat(json, values);
    if (found != FlatJsonObject.GAVE_UP) {
      return found;
    }
    Arrays.fill(values, null);
    return keyValuesWithParser(json, values);
  }

  /**
   * Reads the fields of an image {@link FlatJsonObject} reads into {@code values} (each column's
   * node, or its decimal text when {@code normalized}): the number of fields read, {@link
   * #NOT_EXACT} at a field that is no column when {@code exact}, or {@link FlatJsonObject#GAVE_UP}.
   */
  private int readFlat(String json, JsonNode[] values, boolean[] normalized, boolean exact) {
    FlatJsonObject image = new FlatJsonObject(json);
    if (!image.open()) {
      return FlatJsonObject.GAVE_UP;
    }
    int[] order = fieldOrder; // a generator prints a table's fields in the same order every time
    int[] seen = null; // this image's order, once it differs from that
    boolean learn = true;
    int fields = 0;
    int read;
    while ((read = image.next()) == FlatJsonObject.FIELD) {
      int column;
      if (seen == null && fields < order.length && image.nameIs(columns[order[fields]].name())) {
        column = order[fields];
      } else {
        Integer found = columnIndex.get(image.name());
        column = found == null ? -1 : found;
        if (seen == null) {
          seen = Arrays.copyOf(order, columns.length + 1);
        }
      }
      if (seen != null && fields < seen.length) {
        seen[fields] = column;
      }
      fields++;
      if (column < 0) {
        if (exact) {
          return NOT_EXACT;
        }
        learn = false; // an image with other fields teaches no order
        continue;
      }
      // a number's text is made only for a DECIMAL column
      normalized[column] =
          columns[column].kind() == ColumnKind.DECIMAL
              && isPlainDecimal(column, image.token(), image.text());
      values[column] = normalized[column] ? NODES.textNode(image.text()) : image.node();
    }
    if (learn && seen != null && read == FlatJsonObject.END && fields == columns.length) {
      fieldOrder = Arrays.copyOf(seen, fields); // an image of every column: learn its order
    }
    return read == FlatJsonObject.END ? fields : FlatJsonObject.GAVE_UP;
  }

  /** A decimal printed plain is its own normal form: what its BigDecimal would print. */
  private boolean isPlainDecimal(int column, JsonToken token, String text) {
    return token.isNumeric()
        && columns[column].kind() == ColumnKind.DECIMAL
        && DecimalText.isCompactPlain(text);
  }

  /** {@link #readFlat} with Jackson's parser, for any text: or {@link #NOT_AN_OBJECT}. */
  private int readWithParser(String json, JsonNode[] values, boolean[] normalized, boolean exact) {
    int fields = 0;
    try (JsonParser p = JSON.getFactory().createParser(json)) {
      JsonToken token = p.nextToken();
      if (token != JsonToken.START_OBJECT) {
        return NOT_AN_OBJECT;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        Integer column = columnIndex.get(p.currentName());
        token = p.nextToken();
        fields++;
        if (column == null) {
          if (exact) {
            return NOT_EXACT;
          }
          p.skipChildren();
        } else {
          normalized[column] = token.isNumeric() && isPlainDecimal(column, token, p.getText());
          values[column] = normalized[column] ? NODES.textNode(p.getText()) : node(p, token);
        }
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "image of " + table.id() + " is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String has no I/O to fail
    }
    return fields;
  }

  /**
   * The node {@code readTree} makes of the value at the parser's {@code token}: scalars built here
   * (a row's values are nearly all scalars), objects and arrays (JSON columns) read as trees.
   */
  private static JsonNode node(JsonParser p, JsonToken token) throws IOException {
    switch (token) {
      case VALUE_STRING:
        return NODES.textNode(p.getText());
      case VALUE_NUMBER_INT:
        switch (p.getNumberType()) {
          case INT:
            return NODES.numberNode(p.getIntValue());
          case LONG:
            return NODES.numberNode(p.getLongValue());
          default:
            return NODES.numberNode(p.getBigIntegerValue());
        }
      case VALUE_NUMBER_FLOAT: // as USE_BIG_DECIMAL_FOR_FLOATS reads it: scale kept
        return NODES.numberNode(p.getDecimalValue());
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      case VALUE_NULL:
        return NODES.nullNode();
      default:
        return JSON.readTree(p);
    }
  }

  /**
   * Reads the key columns' values of an image {@link FlatJsonObject} reads into {@code values}: how
   * many key columns it holds, or {@link FlatJsonObject#GAVE_UP}.
   */
  private int keyValuesFlat(String json, JsonNode[] values) {
    FlatJsonObject image = new FlatJsonObject(json);
    if (!image.open()) {
      return FlatJsonObject.GAVE_UP;
    }
    int found = 0;
    int read;
    while ((read = image.next()) == FlatJsonObject.FIELD) {
      Integer column = columnIndex.get(image.name());
      if (column != null && keyColumns[column]) {
        found += values[column] == null ? 1 : 0;
        values[column] = image.node();
      }
    }
    return read == FlatJsonObject.END ? found : FlatJsonObject.GAVE_UP;
  }

  /** {@link #keyValuesFlat} with Jackson's parser, for any text: or -1 for no JSON object. */
  private int keyValuesWithParser(String json, JsonNode[] values) {
    int found = 0;
    try (JsonParser p = JSON.getFactory().createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return -1;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        Integer column = columnIndex.get(p.currentName());
        JsonToken token = p.nextToken();
        if (column == null || !keyColumns[column]) {
          p.skipChildren();
          continue;
        }
        found += values[column] == null ? 1 : 0;
        values[column] = node(p, token);
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "image of " + table.id() + " is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String has no I/O to fail
    }
    return found;
  }
}
