package io.tablecast.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A row filter of a principal: {@code column = <claim:NAME>} or {@code column = literal}, where a
 * literal is an integer or decimal ({@code 42}, {@code -1.5}), a single-quoted string ({@code
 * 'eu'}, {@code ''} inside for a quote) or {@code true}/{@code false}. Nothing else is accepted. A
 * row matches when its column is present, not null and equal to the value (numbers by value; a
 * number column also matches a string value that spells the same number, since JWT claims are often
 * strings).
 *
 * @param column the filtered column
 * @param literal the value, or null when it comes from a claim
 * @param claim the claim naming the value, or null for a literal
 */
public record RowFilter(String column, JsonNode literal, String claim) {

  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale
  private static final Pattern FORM =
      Pattern.compile(
          "\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(?:<claim:([A-Za-z_][A-Za-z0-9_.:-]*)>"
              + "|(-?\\d+(?:\\.\\d+)?)|'((?:[^']|'')*)'|(true|false))\\s*");

  /**
   * Parses the tiny grammar.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static RowFilter parse(String text) {
    Matcher m = text == null ? null : FORM.matcher(text);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(
          "row_filter must be 'column = <claim:NAME>' or 'column = literal' "
              + "(an integer, a decimal, a 'quoted string', true or false), was '"
              + text
              + "'");
    }
    String column = m.group(1);
    if (m.group(2) != null) {
      return new RowFilter(column, null, m.group(2));
    }
    if (m.group(3) != null) {
      return new RowFilter(column, number(new BigDecimal(m.group(3))), null);
    }
    if (m.group(4) != null) {
      return new RowFilter(column, NODES.textNode(m.group(4).replace("''", "'")), null);
    }
    return new RowFilter(column, NODES.booleanNode(Boolean.parseBoolean(m.group(5))), null);
  }

  /**
   * The value rows must have for {@code principal}.
   *
   * @throws AuthenticationException when the claim is missing or not a single string, number or
   *     boolean
   */
  public JsonNode valueFor(Principal principal) {
    if (claim == null) {
      return literal;
    }
    Object v = principal.claims().get(claim);
    if (v instanceof String s) {
      return NODES.textNode(s);
    }
    if (v instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (v instanceof Number n) {
      return number(new BigDecimal(n.toString()));
    }
    throw new AuthenticationException(
        "unresolved_claim",
        "the credentials lack the claim '"
            + claim
            + "' (a string, number or boolean) that the row filter of this principal needs");
  }

  /** Whether a row's column value equals the filter value. */
  static boolean sameValue(JsonNode column, JsonNode value) {
    if (column == null || column.isNull() || value == null) {
      return false;
    }
    if (column.isNumber() && value.isNumber()) {
      return column.decimalValue().compareTo(value.decimalValue()) == 0;
    }
    if (column.isNumber() && value.isTextual()) {
      try {
        return column.decimalValue().compareTo(new BigDecimal(value.textValue().trim())) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    if (column.isTextual() && value.isNumber()) {
      return sameValue(value, column);
    }
    return column.equals(value);
  }

  /**
   * Integral values become long nodes (or BigInteger), others exact decimals: equal values, equal
   * nodes.
   */
  private static JsonNode number(BigDecimal d) {
    BigDecimal s = d.stripTrailingZeros();
    if (s.scale() <= 0) {
      try {
        return NODES.numberNode(s.longValueExact());
      } catch (ArithmeticException e) {
        return NODES.numberNode(s.toBigInteger());
      }
    }
    return NODES.numberNode(s);
  }

  @Override
  public String toString() {
    return column + " = " + (claim != null ? "<claim:" + claim + ">" : literal.toString());
  }
}
