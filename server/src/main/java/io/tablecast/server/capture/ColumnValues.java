package io.tablecast.server.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.InstantText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Locale;

/**
 * The values of a {@link RowNormalizer}'s row, converted one by one to the forms of {@code
 * docs/TYPES.md} by their column's kind; the {@link Dialect} turns the values its database prints
 * its own way. Thread-safe.
 */
final class ColumnValues {
  private static final JsonNodeFactory NODES = MessageCodec.jsonMapper().getNodeFactory();
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private final Dialect dialect;

  ColumnValues(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * The form of {@code c}'s kind of {@code v}, a non-null value as the database's JSON generator
   * wrote it.
   *
   * @throws RuntimeException when it does not convert (the caller names the column)
   */
  JsonNode value(ColumnInfo c, JsonNode v) {
    switch (c.kind()) {
      case INTEGER:
        {
          if (v.isInt() || v.isLong()) { // nearly every value: kept, the row form writes its long
            return v;
          }
          BigInteger i = v.isNumber() ? v.bigIntegerValue() : new BigInteger(v.asText().trim());
          return i.compareTo(LONG_MIN) >= 0 && i.compareTo(LONG_MAX) <= 0
              ? NODES.numberNode(i.longValue())
              : NODES.numberNode(i);
        }
      case DECIMAL:
        // Numbers were parsed as BigDecimal, so the database's scale (trailing zeros) is kept.
        if (v.isNumber()) {
          return NODES.textNode(v.decimalValue().toPlainString());
        }
        return NODES.textNode(dialect.decimal(v.asText())); // e.g. PostgreSQL money: -$1,234.56
      case FLOAT:
        if (v.isNumber()) {
          // e.g. MySQL FLOAT arrives as the exact double of the float: its shortest float form
          // round-trips it
          return dialect.singlePrecision(c)
              ? NODES.numberNode((float) v.doubleValue())
              : NODES.numberNode(v.doubleValue());
        }
        return NODES.textNode(v.asText()); // NaN, Infinity, -Infinity
      case BOOLEAN:
        if (v.isBoolean()) {
          return v;
        }
        if (v.isNumber()) {
          return NODES.booleanNode(v.decimalValue().signum() != 0);
        }
        String b = v.asText().trim().toLowerCase(Locale.ROOT);
        return NODES.booleanNode(b.equals("t") || b.equals("true") || b.equals("1"));
      case STRING:
        return v.isTextual() ? v : NODES.textNode(v.isValueNode() ? v.asText() : v.toString());
      case BINARY:
        return NODES.textNode(dialect.binaryBase64(v.asText()));
      case DATE:
      case TIME:
        return NODES.textNode(v.asText());
      case TIMESTAMP:
        return NODES.textNode(withT(v.asText()));
      case TIMESTAMP_TZ:
        return NODES.textNode(instant(v));
      case JSON:
        return v;
      default:
        throw new IllegalStateException("unknown kind " + c.kind());
    }
  }

  private String instant(JsonNode v) {
    if (v.isNumber()) { // MySQL: UNIX_TIMESTAMP(col), seconds with the column's fraction digits
      BigDecimal seconds = v.decimalValue();
      BigDecimal whole = new BigDecimal(seconds.toBigInteger());
      long nanos = seconds.subtract(whole).movePointRight(9).longValue();
      Instant instant = Instant.ofEpochSecond(whole.longValueExact(), nanos); // nanos may be < 0
      return InstantText.print(instant.getEpochSecond(), instant.getNano());
    }
    return dialect.instant(v.asText());
  }

  /**
   * A local date-time with the {@code T} of ISO 8601 where a database printed a space between date
   * and time (MySQL; PostgreSQL's text output, whose years may have more than four digits).
   */
  private static String withT(String s) {
    int space = s.indexOf(' ');
    return space >= 10 && space + 1 < s.length() && Character.isDigit(s.charAt(space + 1))
        ? s.substring(0, space) + "T" + s.substring(space + 1)
        : s;
  }
}
