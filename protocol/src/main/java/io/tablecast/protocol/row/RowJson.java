package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Arrays;

/**
 * The JSON forms of the rows and keys of one {@link RowLayout}: as trees, and as JSON text written
 * straight from their bytes, with the column names quoted and encoded once (what a WebSocket
 * session receives, written once per batch). Immutable.
 */
final class RowJson {
  private final RowLayout layout;

  /** The column names as JSON writes them. */
  private final SerializedString[] names;

  RowJson(RowLayout layout) {
    this.layout = layout;
    this.names =
        Arrays.stream(layout.names).map(SerializedString::new).toArray(SerializedString[]::new);
  }

  /** The JSON form of an encoded row: every column in table order, NULL as JSON null. */
  ObjectNode toNode(byte[] row) {
    JsonNode[] values = new JsonNode[layout.forms.length];
    RowSource in = new RowSource(row, 0, row.length);
    int keyEnd = RowLayout.keyEnd(in);
    for (int column : layout.keyColumns) {
      values[column] = layout.forms[column].toNode(in);
    }
    RowLayout.expect(in, keyEnd, "the key");
    int bitmap = in.skip(layout.bitmapBytes);
    for (int j = 0; j < layout.otherColumns.length; j++) {
      int column = layout.otherColumns[j];
      values[column] =
          RowLayout.isNull(row, bitmap, j)
              ? ValueForm.NODES.nullNode()
              : layout.forms[column].toNode(in);
    }
    RowLayout.end(in);
    ObjectNode out = ValueForm.NODES.objectNode();
    for (int i = 0; i < layout.forms.length; i++) {
      out.set(layout.names[i], values[i]);
    }
    return out;
  }

  /** The key's values in key order, in their JSON forms. */
  ArrayNode keyToNode(byte[] key) {
    ArrayNode out = ValueForm.NODES.arrayNode(layout.keyColumns.length);
    RowSource in = new RowSource(key, 0, key.length);
    for (int column : layout.keyColumns) {
      out.add(layout.forms[column].toNode(in));
    }
    RowLayout.end(in);
    return out;
  }

  /**
   * Writes an encoded row as a JSON object: the same text as Jackson writes {@link RowForm#toNode}.
   */
  void writeRow(byte[] row, JsonGenerator g) throws IOException {
    RowSource in = new RowSource(row, 0, row.length);
    int keyEnd = RowLayout.keyEnd(in);
    int[] keyValueStarts = new int[layout.keyColumns.length];
    for (int k = 0; k < layout.keyColumns.length; k++) {
      keyValueStarts[k] = in.position();
      layout.forms[layout.keyColumns[k]].skip(in);
    }
    RowLayout.expect(in, keyEnd, "the key");
    int bitmap = in.skip(layout.bitmapBytes);
    RowSource key = new RowSource(row, 0, keyEnd);
    g.writeStartObject();
    for (int i = 0, j = 0; i < layout.forms.length; i++) {
      g.writeFieldName(names[i]);
      if (layout.keyPlace[i] >= 0) {
        key.position(keyValueStarts[layout.keyPlace[i]]);
        layout.forms[i].write(key, g);
      } else if (RowLayout.isNull(row, bitmap, j++)) {
        g.writeNull();
      } else {
        layout.forms[i].write(in, g);
      }
    }
    g.writeEndObject();
    RowLayout.end(in);
  }

  /**
   * Writes an encoded key as a JSON array: the same text as Jackson writes {@link
   * RowForm#keyToNode}.
   */
  void writeKey(byte[] key, JsonGenerator g) throws IOException {
    RowSource in = new RowSource(key, 0, key.length);
    g.writeStartArray();
    for (int column : layout.keyColumns) {
      layout.forms[column].write(in, g);
    }
    g.writeEndArray();
    RowLayout.end(in);
  }
}
