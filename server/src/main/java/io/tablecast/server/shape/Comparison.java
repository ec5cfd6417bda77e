package io.tablecast.server.shape;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.TemporalValues;
import java.math.BigDecimal;
import java.util.List;

/**
 * One column compared with literals, by the column's kind: integers, decimals and floats as exact
 * decimal numbers; dates, times and timestamps as points in time (parsed, not as text); text by
 * Unicode code point, exactly (not by the database's collation: {@code 'a' < 'B'} is false here,
 * and {@code 'A' = 'a'} is false even where the database ignores case); booleans by equality only.
 * A NULL, or a value that cannot be read as its kind (a float's {@code NaN}), compares as unknown.
 *
 * @param column the column
 * @param kind its kind
 * @param op the operator
 * @param values the literals as comparable values of the kind (one, or several for {@code IN})
 */
public record Comparison(String column, ColumnKind kind, Op op, List<Comparable<?>> values) {

  /** The operators; {@code NOT IN} is {@code NOT (column IN ...)}. */
  public enum Op {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">="),
    IN("IN");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** How it is written. */
    public String symbol() {
      return symbol;
    }
  }

  public Comparison {
    values = List.copyOf(values);
  }

  /** TRUE, FALSE or null (unknown) for the column's value {@code v}. */
  Boolean test(JsonNode v) {
    Comparable<?> value = v == null || v.isNull() ? null : valueOf(kind, v);
    if (value == null) {
      return null;
    }
    if (op == Op.IN) {
      for (Comparable<?> c : values) {
        if (compare(value, c) == 0) {
          return true;
        }
      }
      return false;
    }
    int c = compare(value, values.get(0));
    return switch (op) {
      case EQ -> c == 0;
      case NE -> c != 0;
      case LT -> c < 0;
      case LE -> c <= 0;
      case GT -> c > 0;
      case GE -> c >= 0;
      case IN -> throw new AssertionError("handled above");
    };
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // both sides are values of the same kind
  private static int compare(Comparable<?> a, Comparable<?> b) {
    return ((Comparable) a).compareTo(b);
  }

  /** Whether columns of {@code kind} can be filtered, and with which operators. */
  static boolean filterable(ColumnKind kind) {
    return kind != ColumnKind.BINARY && kind != ColumnKind.JSON;
  }

  /** Whether {@code op} applies to values of {@code kind} (booleans: equality only). */
  static boolean applies(Op op, ColumnKind kind) {
    return kind != ColumnKind.BOOLEAN || op == Op.EQ || op == Op.NE || op == Op.IN;
  }

  /**
   * The value of a row's column of {@code kind} (its JSON form, docs/TYPES.md), as a comparable
   * value; null when it cannot be read as one.
   */
  public static Comparable<?> valueOf(ColumnKind kind, JsonNode v) {
    try {
      return switch (kind) {
        case INTEGER, DECIMAL, FLOAT ->
            v.isNumber() ? v.decimalValue() : new BigDecimal(v.asText().trim());
        case BOOLEAN -> v.isBoolean() ? (Comparable<?>) v.booleanValue() : null;
        case STRING -> v.isTextual() ? v.textValue() : v.asText();
        // every form of docs/TYPES.md: years BC and past 9999, infinity, MySQL times past a day
        case DATE -> TemporalValues.date(v.asText());
        case TIME -> TemporalValues.time(v.asText());
        case TIMESTAMP -> TemporalValues.dateTime(v.asText());
        case TIMESTAMP_TZ -> TemporalValues.instant(v.asText());
        case BINARY, JSON -> null;
      };
    } catch (NumberFormatException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return column + " " + op.symbol() + " " + (op == Op.IN ? values : values.get(0));
  }
}
