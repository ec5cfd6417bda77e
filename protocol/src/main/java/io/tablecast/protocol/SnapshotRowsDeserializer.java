package io.tablecast.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.PackedRows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a {@link Message.SnapshotRows}: a chunk whose rows are all in the row form (CBOR byte
 * strings, protocol version 3) is read as {@link PackedRows}, their bytes and no object per row;
 * any other (JSON objects of version 2, or of a WebSocket frame) as a list of rows read as {@link
 * MessageCodecModule} reads each row.
 */
final class SnapshotRowsDeserializer extends StdDeserializer<List<ObjectNode>> {
  private static final long serialVersionUID = 1L;

  SnapshotRowsDeserializer() {
    super(List.class);
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<ObjectNode> deserialize(JsonParser p, DeserializationContext ctxt)
      throws IOException {
    if (!p.isExpectedStartArrayToken()) {
      return (List<ObjectNode>) ctxt.handleUnexpectedToken(List.class, p);
    }
    List<byte[]> packed = new ArrayList<>();
    List<ObjectNode> trees = null;
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      if (t == null) {
        return (List<ObjectNode>) ctxt.handleUnexpectedToken(List.class, p); // cut short
      }
      if (trees == null && t == JsonToken.VALUE_EMBEDDED_OBJECT) {
        packed.add(MessageCodecModule.bytes(p, ctxt, ObjectNode.class));
        continue;
      }
      if (trees == null) { // a row not in the row form: every row becomes an object
        trees = new ArrayList<>();
        for (byte[] row : packed) {
          trees.add(PackedRow.of(null, row));
        }
      }
      trees.add(ctxt.readValue(p, ObjectNode.class));
    }
    return trees != null ? trees : PackedRows.of(null, packed);
  }
}
