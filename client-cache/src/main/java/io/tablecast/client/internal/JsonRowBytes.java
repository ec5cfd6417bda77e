package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * Approximate heap bytes of a row as the client holds it today (a 64-bit JVM with compressed
 * references): the Jackson tree of a snapshot row while the snapshot is in flight, and the JSON
 * text of its image once installed. Field names are shared by every row (Jackson canonicalizes
 * them) and not counted. An estimate for {@link SnapshotSizing}, not a measurement. Internal.
 */
final class JsonRowBytes {
  private JsonRowBytes() {}

  static long align(long bytes) {
    return (bytes + 7) & ~7L;
  }

  /** Bytes of a {@code byte[]} or Latin-1 {@code String}'s array of {@code n} bytes. */
  private static long array(long n) {
    return align(16 + n);
  }

  /** Heap bytes of the tree of {@code node}. */
  static long tree(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT:
        {
          int n = node.size();
          long capacity = 16;
          while (capacity * 3 / 4 < n) {
            capacity <<= 1;
          }
          // ObjectNode, its LinkedHashMap, the table, one entry per field
          long bytes = 16 + 56 + array(4 * capacity) + 40L * n;
          for (JsonNode value : node) {
            bytes += tree(value);
          }
          return bytes;
        }
      case ARRAY:
        {
          long bytes = 16 + 24 + array(4L * node.size()); // ArrayNode, ArrayList, its array
          for (JsonNode child : node) {
            bytes += tree(child);
          }
          return bytes;
        }
      case STRING:
        return 16 + 24 + array(node.textValue().length()); // TextNode, String, its bytes
      case BINARY:
        try {
          return 16 + array(node.binaryValue().length);
        } catch (java.io.IOException e) {
          return 16;
        }
      case NUMBER:
        return node.isBigDecimal() || node.isBigInteger() ? 16 + 40 + 40 : align(16 + 8);
      default: // null and booleans are shared singletons
        return 0;
    }
  }

  /** Bytes of the row's JSON text (its image in the mirror), approximated from the tree. */
  static long json(JsonNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8).length;
  }
}
