package io.tablecast.server.shape;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnKind;
import java.math.BigDecimal;

/** How a filter's literals and parameters become values of a column's kind. */
final class FilterValues {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private FilterValues() {}

  /** A bound parameter (a string, number or boolean; anything else by its text) as JSON. */
  static JsonNode param(Object p) {
    if (p instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (p instanceof Number n) {
      return NODES.numberNode(new BigDecimal(n.toString()));
    }
    return NODES.textNode(p.toString());
  }

  /** A literal as a value of {@code kind}: numbers only for numbers, text for text and times. */
  static Comparable<?> literal(ColumnKind kind, JsonNode node) {
    return switch (kind) {
      case INTEGER, DECIMAL, FLOAT -> node.isNumber() ? Comparison.valueOf(kind, node) : null;
      case BOOLEAN -> node.isBoolean() ? Comparison.valueOf(kind, node) : null;
      default -> node.isTextual() ? Comparison.valueOf(kind, node) : null;
    };
  }

  /** Whether values of the two kinds compare: numbers with numbers, else the same kind. */
  static boolean comparable(ColumnKind a, ColumnKind b) {
    return a == b || (numeric(a) && numeric(b));
  }

  static boolean numeric(ColumnKind k) {
    return k == ColumnKind.INTEGER || k == ColumnKind.DECIMAL || k == ColumnKind.FLOAT;
  }
}
