package io.tablecast.protocol.row;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts JSON rows to plain Java values the way Jackson maps JSON text to {@code Object}:
 * strings, {@code Integer}/{@code Long}/{@code BigInteger}, {@code Double}, booleans, null, and
 * nested maps and lists. The results are unmodifiable because every reader shares them. What a
 * generic mirror's rows give ({@link RowForm#valueToJava} decodes straight to the same values).
 */
public final class JavaValues {

  private JavaValues() {}

  /** A JSON object as an unmodifiable map of its fields' Java values, in the object's order. */
  public static Map<String, Object> toMap(JsonNode row) {
    Map<String, Object> m = new LinkedHashMap<>(Math.max(4, row.size() * 4 / 3 + 1));
    for (Map.Entry<String, JsonNode> e : row.properties()) {
      m.put(e.getKey(), toJava(e.getValue()));
    }
    return Collections.unmodifiableMap(m);
  }

  /** A JSON value as Java: see the class comment. */
  public static Object toJava(JsonNode n) {
    switch (n.getNodeType()) {
      case STRING:
        return n.textValue();
      case BOOLEAN:
        return n.booleanValue();
      case NULL:
      case MISSING:
        return null;
      case NUMBER:
        if (n.isIntegralNumber()) {
          if (n.canConvertToInt()) {
            return n.intValue();
          }
          if (n.canConvertToLong()) {
            return n.longValue();
          }
          BigInteger b = n.bigIntegerValue();
          return b;
        }
        return n.doubleValue();
      case OBJECT:
        return toMap(n);
      case ARRAY:
        List<Object> list = new ArrayList<>(n.size());
        for (JsonNode e : n) {
          list.add(toJava(e));
        }
        return Collections.unmodifiableList(list);
      case BINARY:
      case POJO:
      default:
        return n.toString();
    }
  }
}
