package io.tablecast.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tablecast.protocol.ColumnInfo;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column value as the text of its JSON form in docs/TYPES.md, computed independently on the
 * two sides of a mirror-versus-table comparison: from the value JDBC reads with the getter that
 * fits the column's kind (bytes, {@code BigDecimal}, {@code java.time} values), and from the
 * value a generic mirror row holds. Equal texts mean equal values: integers over the full 64-bit
 * range, decimals with their scale, floats at the column's precision, binary byte for byte,
 * temporal values to the declared fraction, JSON by structure (object key order ignored).
 *
 * <p>A mirror value of the wrong Java type for its kind (a number where a string belongs, ...)
 * renders as a {@code MISMATCH} text, so the comparison fails naming it.
 */
final class ExactValues {
  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  private static final Set<String> FLOAT_WORDS = Set.of("NaN", "Infinity", "-Infinity");
  private static final Pattern DECLARED_DIGITS = Pattern.compile("\\((\\d)\\)");
  private static final DateTimeFormatter MYSQL_DATE_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  private ExactValues() {}

  /**
   * The value of column {@code i}. A MySQL/MariaDB caller must have set the session time zone
   * to UTC ({@code TIMESTAMP} values are read as UTC local date-times).
   *
   * @param column the column's layout as the server reported it, or null for a column the
   *     mirror does not know (then the database's text is used)
   */
  static String fromDatabase(ResultSet rs, int i, ColumnInfo column, boolean postgres) throws SQLException {
    String text = rs.getString(i);
    if (text == null || column == null) {
      return text;
    }
    switch (column.kind()) {
      case INTEGER:
        return new BigInteger(text.trim()).toString();
      case DECIMAL:
        return FLOAT_WORDS.contains(text) ? text : rs.getBigDecimal(i).toPlainString();
      case FLOAT:
        return singlePrecision(column) ? Float.toString(rs.getFloat(i)) : Double.toString(rs.getDouble(i));
      case BOOLEAN:
        return Boolean.toString(rs.getBoolean(i));
      case STRING:
        return text;
      case BINARY:
        return Base64.getEncoder().encodeToString(rs.getBytes(i));
      case DATE: {
        LocalDate d = rs.getObject(i, LocalDate.class);
        return d.equals(LocalDate.MAX) ? "infinity" : d.equals(LocalDate.MIN) ? "-infinity" : d.toString();
      }
      case TIME:
        // MySQL TIME spans -838:59:59..838:59:59, beyond LocalTime: its text is its documented form
        return postgres ? DateTimeFormatter.ISO_LOCAL_TIME.format(rs.getObject(i, LocalTime.class)) : text;
      case TIMESTAMP: {
        LocalDateTime t = rs.getObject(i, LocalDateTime.class);
        if (postgres) {
          return t.equals(LocalDateTime.MAX) ? "infinity" : t.equals(LocalDateTime.MIN) ? "-infinity"
              : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t);
        }
        return MYSQL_DATE_TIME.format(t) + fraction(t.getNano(), declaredDigits(column));
      }
      case TIMESTAMP_TZ: {
        if (!postgres) {
          return rs.getObject(i, LocalDateTime.class).toInstant(ZoneOffset.UTC).toString();
        }
        OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
        return t.equals(OffsetDateTime.MAX) ? "infinity" : t.equals(OffsetDateTime.MIN) ? "-infinity"
            : t.toInstant().toString();
      }
      case JSON:
        if (postgres && column.dbType().endsWith("[]")) {
          return json(list(rs.getArray(i)));
        }
        try {
          return json(JSON.readValue(text, Object.class));
        } catch (JsonProcessingException e) {
          throw new IllegalStateException("column " + column.name() + " holds no JSON: " + text, e);
        }
      default:
        throw new IllegalStateException("no exact form for kind " + column.kind());
    }
  }

  /** The value a generic mirror row holds for {@code column} (null when the mirror lacks the column). */
  static String fromMirror(Object v, ColumnInfo column) {
    if (v == null || column == null) {
      return v == null ? null : String.valueOf(v);
    }
    switch (column.kind()) {
      case INTEGER:
        return v instanceof Integer || v instanceof Long || v instanceof BigInteger
            ? new BigInteger(v.toString()).toString() : mismatch(v, column);
      case FLOAT: {
        double d;
        if (v instanceof Double) {
          d = (Double) v;
        } else if (v instanceof String s && FLOAT_WORDS.contains(s)) {
          d = Double.parseDouble(s);
        } else {
          return mismatch(v, column);
        }
        return singlePrecision(column) ? Float.toString((float) d) : Double.toString(d);
      }
      case BOOLEAN:
        return v instanceof Boolean ? v.toString() : mismatch(v, column);
      case JSON:
        return json(v);
      default: // strings in every other form: decimals, text, base64, temporal values
        return v instanceof String s ? s : mismatch(v, column);
    }
  }

  private static String mismatch(Object v, ColumnInfo column) {
    return "MISMATCH: " + v.getClass().getSimpleName() + " " + v + " is not a JSON form of " + column.kind();
  }

  /** PostgreSQL {@code real}, MySQL {@code float}: compared at single precision. */
  private static boolean singlePrecision(ColumnInfo column) {
    String t = column.dbType().toLowerCase(java.util.Locale.ROOT);
    return t.equals("float4") || t.startsWith("float") && !t.equals("float8");
  }

  /** The fraction digits a MySQL type declares: {@code datetime(6)} → 6, {@code datetime} → 0. */
  private static int declaredDigits(ColumnInfo column) {
    Matcher m = DECLARED_DIGITS.matcher(column.dbType());
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  private static String fraction(int nanos, int digits) {
    if (digits == 0) {
      return "";
    }
    String nine = String.format("%09d", nanos);
    return "." + nine.substring(0, digits);
  }

  /** A PostgreSQL array as nested lists, elements as JSON would carry them. */
  private static List<Object> list(Array array) throws SQLException {
    List<Object> out = new ArrayList<>();
    for (Object e : (Object[]) array.getArray()) {
      out.add(element(e));
    }
    return out;
  }

  private static Object element(Object e) {
    if (e instanceof Object[] nested) {
      List<Object> out = new ArrayList<>();
      for (Object x : nested) {
        out.add(element(x));
      }
      return out;
    }
    if (e instanceof BigDecimal b) {
      return b.doubleValue(); // a generic row holds JSON fractions as doubles
    }
    return e;
  }

  private static String json(Object v) {
    try {
      return JSON.writeValueAsString(v);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render " + v + " as JSON", e);
    }
  }
}
