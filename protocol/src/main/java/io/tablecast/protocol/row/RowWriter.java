package io.tablecast.protocol.row;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import java.util.List;

/**
 * Writes a {@link RowForm}'s rows and keys from their values' JSON forms (and, for rows read as
 * column texts, from the texts): the encoding half of the row form, behind its public methods.
 * Immutable and thread-safe.
 */
final class RowWriter {
  private final List<ColumnInfo> columns;
  private final ValueForm[] forms;
  private final String[] names;
  private final int[] keyColumns;
  private final int[] otherColumns;
  private final int bitmapBytes;

  RowWriter(List<ColumnInfo> columns, RowLayout layout) {
    this.columns = columns;
    this.forms = layout.forms;
    this.names = layout.names;
    this.keyColumns = layout.keyColumns;
    this.otherColumns = layout.otherColumns;
    this.bitmapBytes = layout.bitmapBytes;
  }

  /**
   * The row form of {@code values} in table order (JSON null for NULL), a column without a value
   * written from its text in {@code texts} when given; {@code row}: the object the values came
   * from, for messages (null: print the values).
   */
  byte[] row(JsonNode[] values, String[] texts, JsonNode row) {
    RowSink sink = RowSink.borrow();
    try {
      return encode(values, texts, row, sink);
    } finally {
      sink.giveBack();
    }
  }

  private byte[] encode(JsonNode[] values, String[] texts, JsonNode row, RowSink out) {
    out.write(0); // the key's length, a one-byte varint below 128: set once the key is written
    writeKey(values, texts, row, out);
    int keyLength = out.size() - 1;
    if (keyLength < 0x80) {
      out.set(0, keyLength);
    } else { // a longer varint: the key written again after it
      out = new RowSink(keyLength + 3 + bitmapBytes + 8 * otherColumns.length);
      Varints.writeUnsigned(out, keyLength);
      writeKey(values, texts, row, out);
    }
    int bitmap = out.size();
    for (int i = 0; i < bitmapBytes; i++) {
      out.write(0);
    }
    for (int j = 0; j < otherColumns.length; j++) {
      int column = otherColumns[j];
      JsonNode v = values[column];
      if (v == null && texts != null && texts[column] != null) {
        TextValues.write(columns.get(column), forms[column], texts[column], out);
      } else if (v == null || v.isNull()) {
        out.setBit(bitmap + (j >>> 3), j & 7);
      } else {
        encodeValue(column, v, out);
      }
    }
    return out.toByteArray();
  }

  private ObjectNode valuesNode(JsonNode[] values) {
    ObjectNode out = ValueForm.NODES.objectNode();
    for (int i = 0; i < names.length; i++) {
      if (values[i] != null) {
        out.set(names[i], values[i]);
      }
    }
    return out;
  }

  /** The key of values in table order; {@code shown}: what a message prints (null: the values). */
  byte[] key(JsonNode[] values, JsonNode shown) {
    RowSink out = RowSink.borrow();
    try {
      writeKey(values, null, shown, out);
      return out.toByteArray();
    } finally {
      out.giveBack();
    }
  }

  private void writeKey(JsonNode[] values, String[] texts, JsonNode shown, RowSink out) {
    for (int column : keyColumns) {
      JsonNode v = values[column];
      if (v == null && texts != null && texts[column] != null) {
        TextValues.write(columns.get(column), forms[column], texts[column], out);
        continue;
      }
      if (v == null || v.isNull()) {
        throw new IllegalArgumentException(
            "primary-key column "
                + names[column]
                + " is "
                + (v == null ? "missing" : "NULL")
                + " in "
                + ValueBytes.abbreviated(shown != null ? shown : valuesNode(values)));
      }
      encodeValue(column, v, out);
    }
  }

  private void encodeValue(int column, JsonNode v, RowSink out) {
    try {
      forms[column].encode(v, out);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "column "
              + names[column]
              + " ("
              + columns.get(column).kind()
              + "): "
              + e.getMessage()
              + ", was "
              + ValueBytes.abbreviated(v),
          e);
    }
  }
}
