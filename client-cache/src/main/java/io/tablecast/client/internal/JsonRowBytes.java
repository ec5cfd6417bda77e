package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Approximate heap bytes of what the client holds of a row (a 64-bit JVM with compressed
 * references): a byte array, a key, a Jackson tree (a version-2 server's rows), an object holding
 * the row's values (a typed row). Field names are shared by every row (Jackson canonicalizes them)
 * and not counted. Estimates for {@link SnapshotSizing}, not measurements: {@code MirrorMemoryTest}
 * measures the mirrors with JOL. Internal.
 */
final class JsonRowBytes {
  private JsonRowBytes() {}

  static long align(long bytes) {
    return (bytes + 7) & ~7L;
  }

  /** Bytes of a {@code byte[]} or Latin-1 {@code String}'s array of {@code n} bytes. */
  static long bytes(long n) {
    return align(16 + n);
  }

  private static long array(long n) {
    return bytes(n);
  }

  /**
   * Bytes of a normalized key held beside its row in a {@code RowIndex}: nothing for a {@code Long}
   * (kept as a primitive), else its reference and its object.
   */
  static long key(Object key) {
    if (key instanceof Long) {
      return 0;
    }
    if (key instanceof String text) {
      return 4 + 24 + array(text.length());
    }
    if (key instanceof List<?> parts) {
      long bytes = 4 + 16 + array(4L * parts.size());
      for (Object part : parts) {
        bytes += key(part) + (part instanceof Long ? 16 : 0);
      }
      return bytes;
    }
    return 4 + 24;
  }

  /**
   * Bytes of an object holding the row's values, as a typed row does: a header and a field of up to
   * 8 bytes per column, and beside it each value that is an object of its own (text, a decimal,
   * binary).
   */
  static long values(JsonNode row) {
    return align(12 + 8L * row.size()) + referenced(row);
  }

  /**
   * Bytes of the values of {@code row} that are objects of their own beside the object holding them
   * (text, a decimal, binary, a container), as {@link #values} counts them.
   */
  static long referenced(JsonNode row) {
    long bytes = 0;
    for (JsonNode value : row) {
      if (value.isTextual()) {
        bytes += 24 + array(value.textValue().length());
      } else if (value.isBigDecimal()) { // its unscaled value inline when it fits a long
        bytes += 40 + (value.decimalValue().unscaledValue().bitLength() > 63 ? 40 : 0);
      } else if (value.isBigInteger()) {
        bytes += 40 + array(value.bigIntegerValue().bitLength() / 8 + 1);
      } else if (value.isBinary()) {
        bytes += tree(value);
      } else if (value.isContainerNode()) {
        bytes += tree(value);
      }
    }
    return bytes;
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
}
