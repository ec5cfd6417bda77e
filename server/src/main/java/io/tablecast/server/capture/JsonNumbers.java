package io.tablecast.server.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.MessageCodec;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A value's text taken as a JSON generator would print it ({@link
 * RowNormalizer#encodeColumnTexts}): whether it is a JSON number, and the node Jackson reads from
 * that number (what {@link RowNormalizer#encode(String)} converts), so that both reads of a row
 * give the same bytes.
 */
final class JsonNumbers {
  private static final JsonNodeFactory NODES = MessageCodec.jsonMapper().getNodeFactory();

  private JsonNumbers() {}

  /**
   * Whether {@code text} is a JSON number ({@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}),
   * the test PostgreSQL's JSON output applies to a numeric type's text before printing it bare.
   */
  static boolean isNumber(String text) {
    return numberEnd(text, 0) == text.length();
  }

  /**
   * Where the JSON number that starts at {@code from} in {@code text} ends (the grammar of {@link
   * #isNumber}), or -1 when none starts there.
   */
  static int numberEnd(String text, int from) {
    int n = text.length();
    int i = from;
    if (i < n && text.charAt(i) == '-') {
      i++;
    }
    if (i >= n || !digit(text.charAt(i))) {
      return -1;
    }
    if (text.charAt(i) == '0') {
      i++;
    } else {
      i = digits(text, i);
    }
    if (i < n && text.charAt(i) == '.') {
      int start = i + 1;
      i = digits(text, start);
      if (i == start) {
        return -1;
      }
    }
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      int start = i;
      i = digits(text, i);
      if (i == start) {
        return -1;
      }
    }
    return i;
  }

  /** Whether {@code text} is a boolean as PostgreSQL prints one: t, f, true or false. */
  static boolean isBoolean(String text) {
    return switch (text) {
      case "t", "f", "true", "false" -> true;
      default -> false;
    };
  }

  /**
   * The node Jackson reads from the JSON number {@code text} ({@link #isNumber}): an integer as an
   * int, long or BigInteger node by its size, anything with a fraction or an exponent as a decimal
   * node with its scale (the mapper reads floats as BigDecimal).
   */
  static JsonNode node(String text) {
    boolean integral = text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
    if (!integral) {
      return NODES.numberNode(new BigDecimal(text));
    }
    if (text.length() <= 18) { // at most 18 digits: a long, no BigInteger
      long value = Long.parseLong(text);
      return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
    }
    BigInteger value = new BigInteger(text);
    if (value.bitLength() < 32) {
      return NODES.numberNode(value.intValue());
    }
    return value.bitLength() < 64 ? NODES.numberNode(value.longValue()) : NODES.numberNode(value);
  }

  /**
   * The node of a FLOAT column's JSON number {@code text} ({@link #isNumber}) as the row form takes
   * it: a double node when {@code text} has a fraction or an exponent, parsed straight to the
   * double that {@link #node}'s decimal would give ({@code BigDecimal.doubleValue} and {@code
   * Double.parseDouble} both round the exact value to the nearest double; in Java 17 the first
   * formats the decimal and parses it again for most values, a fifth of a snapshot's time on a
   * table with a double); an integer (PostgreSQL prints {@code -0} so) as {@link #node} reads it,
   * so that {@code -0} stays the integer 0.
   */
  static JsonNode floatNode(String text) {
    boolean integral = text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
    return integral ? node(text) : NODES.numberNode(Double.parseDouble(text));
  }

  private static boolean digit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digits(String text, int from) {
    int i = from;
    while (i < text.length() && digit(text.charAt(i))) {
      i++;
    }
    return i;
  }
}
