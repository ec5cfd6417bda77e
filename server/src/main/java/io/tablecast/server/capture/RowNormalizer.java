package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.MessageCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * Turns the JSON a database generated for one row (trigger image or snapshot row: both use the
 * same generator) into the forms of {@code docs/TYPES.md}, with the table's columns in order.
 * Thread-safe.
 */
public final class RowNormalizer {
  private static final ObjectMapper JSON = MessageCodec.jsonMapper();
  private static final JsonNodeFactory NODES = JSON.getNodeFactory();
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private final TableSchema table;
  private final Dialect dialect;

  public RowNormalizer(TableSchema table, Dialect dialect) {
    this.table = table;
    this.dialect = dialect;
  }

  public TableSchema table() {
    return table;
  }

  /** Parses and normalizes a row image; null stays null. */
  public ObjectNode normalize(String json) {
    if (json == null) {
      return null;
    }
    try {
      return normalize(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("row image of " + table.id() + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Normalizes a partial image, such as the primary-key image a MySQL trigger records: only the
   * columns it holds, in table order.
   */
  public ObjectNode normalizePresent(JsonNode raw) {
    ObjectNode out = NODES.objectNode();
    for (ColumnInfo c : table.columns()) {
      JsonNode v = raw.get(c.name());
      if (v != null) {
        out.set(c.name(), v.isNull() ? NODES.nullNode() : value(c, v));
      }
    }
    return out;
  }

  /** Parses JSON text (an outbox image) without normalizing it. */
  public JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("image of " + table.id() + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Normalizes a parsed row image; columns missing from it become null. */
  public ObjectNode normalize(JsonNode raw) {
    if (raw == null || raw.isNull()) {
      return null;
    }
    ObjectNode out = NODES.objectNode();
    for (ColumnInfo c : table.columns()) {
      JsonNode v = raw.get(c.name());
      try {
        out.set(c.name(), v == null || v.isNull() ? NODES.nullNode() : value(c, v));
      } catch (RuntimeException e) {
        throw new IllegalStateException("cannot convert " + table.id() + "." + c.name() + " (" + c.dbType()
            + ") value " + v + " to " + c.kind() + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  private JsonNode value(ColumnInfo c, JsonNode v) {
    switch (c.kind()) {
      case INTEGER: {
        BigInteger i = v.isNumber() ? v.bigIntegerValue() : new BigInteger(v.asText().trim());
        return i.compareTo(LONG_MIN) >= 0 && i.compareTo(LONG_MAX) <= 0 ? NODES.numberNode(i.longValue()) : NODES.numberNode(i);
      }
      case DECIMAL:
        // Numbers were parsed as BigDecimal, so the database's scale (trailing zeros) is kept.
        if (v.isNumber()) {
          return NODES.textNode(v.decimalValue().toPlainString());
        }
        // PostgreSQL money arrives as lc_monetary = C prints it: -$1,234.56
        return NODES.textNode(dialect == Dialect.POSTGRESQL ? PgTypes.moneyDecimal(v.asText()) : v.asText());
      case FLOAT:
        if (v.isNumber()) {
          // MySQL FLOAT arrives as the exact double of the float: its shortest float form round-trips it
          return dialect != Dialect.POSTGRESQL && MysqlTriggers.isSinglePrecision(c)
              ? NODES.numberNode((float) v.doubleValue()) : NODES.numberNode(v.doubleValue());
        }
        return NODES.textNode(v.asText()); // NaN, Infinity, -Infinity
      case BOOLEAN:
        if (v.isBoolean()) {
          return v;
        }
        if (v.isNumber()) {
          return NODES.booleanNode(v.decimalValue().signum() != 0);
        }
        String b = v.asText().trim().toLowerCase(java.util.Locale.ROOT);
        return NODES.booleanNode(b.equals("t") || b.equals("true") || b.equals("1"));
      case STRING:
        return v.isTextual() ? v : NODES.textNode(v.isValueNode() ? v.asText() : v.toString());
      case BINARY: {
        String s = v.asText();
        if (dialect == Dialect.POSTGRESQL) { // hex, or escape from a writer with bytea_output = escape
          return NODES.textNode(Base64.getEncoder().encodeToString(PgTypes.bytea(s)));
        }
        return NODES.textNode(s.replace("\n", "").replace("\r", ""));
      }
      case DATE:
      case TIME:
        return NODES.textNode(v.asText());
      case TIMESTAMP: {
        String s = v.asText();
        return NODES.textNode(s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + "T" + s.substring(11) : s);
      }
      case TIMESTAMP_TZ:
        return NODES.textNode(instant(v));
      case JSON:
        return v;
      default:
        throw new IllegalStateException("unknown kind " + c.kind());
    }
  }

  private static String instant(JsonNode v) {
    if (v.isNumber()) { // MySQL: UNIX_TIMESTAMP(col), seconds with the column's fraction digits
      BigDecimal seconds = v.decimalValue();
      BigDecimal whole = new BigDecimal(seconds.toBigInteger());
      long nanos = seconds.subtract(whole).movePointRight(9).longValue();
      return Instant.ofEpochSecond(whole.longValueExact(), nanos).toString();
    }
    String s = v.asText();
    if (s.equals("infinity") || s.equals("-infinity")) {
      return s;
    }
    return OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toString();
  }
}
