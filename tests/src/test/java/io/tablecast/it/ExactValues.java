package io.tablecast.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tablecast.client.Column;
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
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column value as the text of its JSON form in docs/TYPES.md, computed independently on the two
 * sides of a mirror-versus-table comparison: from the value JDBC reads with the getter that fits
 * the column's kind (bytes, {@code BigDecimal}, {@code java.time} values), and from the value a
 * generic mirror row holds. Equal texts mean equal values: integers over the full 64-bit range,
 * decimals with their scale, floats at the column's precision, binary byte for byte, temporal
 * values to the declared fraction, JSON by structure (object key order ignored).
 *
 * <p>A mirror value of the wrong Java type for its kind (a number where a string belongs, ...)
 * renders as a {@code MISMATCH} text, so the comparison fails naming it.
 */
final class ExactValues {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  private static final Set<String> FLOAT_WORDS = Set.of("NaN", "Infinity", "-Infinity");
  private static final Pattern DECLARED_DIGITS = Pattern.compile("\\((\\d+)\\)");
  private static final Set<String> SPATIAL =
      Set.of(
          "geometry",
          "point",
          "linestring",
          "polygon",
          "multipoint",
          "multilinestring",
          "multipolygon",
          "geometrycollection",
          "geomcollection");
  private static final DateTimeFormatter MYSQL_DATE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  /**
   * PostgreSQL types (catalog names, as {@code Column.databaseType} reports them) with a form
   * below.
   */
  private static final Set<String> POSTGRES_TYPES =
      Set.of(
          "int2",
          "int4",
          "int8",
          "numeric",
          "float4",
          "float8",
          "bool",
          "text",
          "varchar",
          "bpchar",
          "name",
          "uuid",
          "citext",
          "inet",
          "cidr",
          "macaddr",
          "macaddr8",
          "interval",
          "timetz",
          "xml",
          "bit",
          "varbit",
          "bytea",
          "date",
          "time",
          "timestamp",
          "timestamptz",
          "json",
          "jsonb",
          "int2[]",
          "int4[]",
          "int8[]",
          "text[]",
          "varchar[]",
          "bool[]");

  /** MySQL/MariaDB types (the name before any {@code (...)} or attribute) with a form below. */
  private static final Set<String> MYSQL_TYPES =
      Set.of(
          "tinyint",
          "smallint",
          "mediumint",
          "int",
          "integer",
          "bigint",
          "year",
          "decimal",
          "numeric",
          "float",
          "double",
          "real",
          "char",
          "varchar",
          "tinytext",
          "text",
          "mediumtext",
          "longtext",
          "enum",
          "set",
          "binary",
          "varbinary",
          "tinyblob",
          "blob",
          "mediumblob",
          "longblob",
          "date",
          "time",
          "datetime",
          "timestamp",
          "json",
          "uuid",
          "inet4",
          "inet6");

  private static final Pattern TYPE_NAME = Pattern.compile("^([a-z0-9_]+(?:\\[\\])?)");

  private ExactValues() {}

  /**
   * Whether this class has an exact form for {@code column}: a type of docs/TYPES.md's tables with
   * the kind documented there. Values of other types (spatial, ranges, composites, ...) need the
   * database to compare them ({@link DatabaseForms}).
   */
  static boolean hasExactForm(Column column, boolean postgres) {
    String type =
        column.databaseType().toLowerCase(java.util.Locale.ROOT).replaceAll("\\(.*?\\)", "");
    Matcher m = TYPE_NAME.matcher(type);
    if (!m.find() || !(postgres ? POSTGRES_TYPES : MYSQL_TYPES).contains(m.group(1))) {
      return false;
    }
    switch (column.type()) {
      case INTEGER:
      case DECIMAL:
      case FLOAT:
      case BOOLEAN:
      case STRING:
      case BINARY:
      case DATE:
      case TIME:
      case TIMESTAMP:
      case TIMESTAMP_TZ:
      case JSON:
        return true;
      default:
        return false;
    }
  }

  /**
   * The value of column {@code i}. A MySQL/MariaDB caller must have set the session time zone to
   * UTC ({@code TIMESTAMP} values are read as UTC local date-times).
   *
   * @param column the column's layout as the server reported it, or null for a column the mirror
   *     does not know (then the database's text is used)
   */
  static String fromDatabase(ResultSet rs, int i, Column column, boolean postgres)
      throws SQLException {
    return fromDatabase(rs, i, column, postgres, null);
  }

  /**
   * As {@link #fromDatabase(ResultSet, int, Column, boolean)}; a PostgreSQL caller reads in a
   * session with {@code TimeZone = UTC} and passes the row's {@code to_jsonb} text, whose field is
   * the form of a composite value (and of arrays of composites or hstore) by definition.
   */
  static String fromDatabase(ResultSet rs, int i, Column column, boolean postgres, String rowJson)
      throws SQLException {
    String text = rs.getString(i);
    if (text == null || column == null) {
      return text;
    }
    switch (column.type()) {
      case INTEGER:
        return new BigInteger(text.trim()).toString();
      case DECIMAL:
        if (postgres && text.contains("$")) { // money, as lc_monetary = C prints it: -$1,234.56
          return new BigDecimal(text.replace("$", "").replace(",", "")).toPlainString();
        }
        return FLOAT_WORDS.contains(text) ? text : rs.getBigDecimal(i).toPlainString();
      case FLOAT:
        return singlePrecision(column)
            ? Float.toString(rs.getFloat(i))
            : Double.toString(rs.getDouble(i));
      case BOOLEAN:
        return Boolean.toString(rs.getBoolean(i));
      case STRING:
        return !postgres && isMysqlBit(column)
            ? bits(rs.getBytes(i), declaredDigits(column))
            : text;
      case BINARY:
        return Base64.getEncoder().encodeToString(rs.getBytes(i));
      case DATE:
        {
          LocalDate d = rs.getObject(i, LocalDate.class);
          return d.equals(LocalDate.MAX)
              ? "infinity"
              : d.equals(LocalDate.MIN) ? "-infinity" : d.toString();
        }
      case TIME:
        // MySQL TIME spans -838:59:59..838:59:59, beyond LocalTime: its text is its documented form
        return postgres
            ? DateTimeFormatter.ISO_LOCAL_TIME.format(rs.getObject(i, LocalTime.class))
            : text;
      case TIMESTAMP:
        {
          LocalDateTime t = rs.getObject(i, LocalDateTime.class);
          if (postgres) {
            return t.equals(LocalDateTime.MAX)
                ? "infinity"
                : t.equals(LocalDateTime.MIN)
                    ? "-infinity"
                    : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t);
          }
          return MYSQL_DATE_TIME.format(t) + fraction(t.getNano(), declaredDigits(column));
        }
      case TIMESTAMP_TZ:
        {
          if (!postgres) {
            return rs.getObject(i, LocalDateTime.class).toInstant(ZoneOffset.UTC).toString();
          }
          OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
          return t.equals(OffsetDateTime.MAX)
              ? "infinity"
              : t.equals(OffsetDateTime.MIN) ? "-infinity" : t.toInstant().toString();
        }
      case JSON:
        if (!postgres && isSpatial(column)) {
          return json(GeoJsonOfWkb.of(rs.getBytes(i)));
        }
        if (postgres
            && !column.databaseType().equals("json")
            && !column.databaseType().equals("jsonb")) {
          return postgresJson(rs, i, column, text, rowJson);
        }
        return parsed(column, text);
      default:
        throw new IllegalStateException("no exact form for kind " + column.type());
    }
  }

  /**
   * PostgreSQL arrays from their text (elements in the forms of their type: numbers, booleans,
   * date-times with {@code T}, timestamptz with {@code +00:00}, text), hstore from the driver's
   * map, composite values (and arrays of composites or hstore) from the row's {@code to_jsonb}.
   */
  private static String postgresJson(
      ResultSet rs, int i, Column column, String text, String rowJson) throws SQLException {
    String element =
        column.databaseType().endsWith("[]")
            ? column.databaseType().substring(0, column.databaseType().length() - 2)
            : null;
    if (element != null && !element.equals("hstore") && !COMPOSITE_ELEMENTS.contains(element)) {
      if (element.equals("int4") || element.equals("text")) {
        return json(list(rs.getArray(i))); // as before: the driver's element values
      }
      return json(PgArrayText.parse(text, e -> arrayElement(element, e)));
    }
    Object o = element == null ? rs.getObject(i) : null;
    if (o instanceof Map<?, ?> hstore) {
      return json(hstore);
    }
    if (rowJson == null) {
      throw new IllegalStateException(
          "column " + column.name() + " (" + column.databaseType() + ") needs the row's to_jsonb");
    }
    try {
      return json(((Map<?, ?>) JSON.readValue(rowJson, Map.class)).get(column.name()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("row JSON is not JSON: " + rowJson, e);
    }
  }

  /** Element types of arrays in the tests whose elements are composite values. */
  private static final Set<String> COMPOSITE_ELEMENTS = Set.of("address");

  /** One element of a PostgreSQL array, from its text, in the form {@code to_jsonb} gives it. */
  private static Object arrayElement(String type, String text) {
    switch (type) {
      case "int2":
      case "int8":
      case "oid":
        return new BigInteger(text);
      case "float4":
      case "float8":
        return FLOAT_WORDS.contains(text) ? text : Double.parseDouble(text);
      case "numeric": // a generic row holds JSON fractions as doubles, whole numbers as integers
        return text.equals("NaN")
            ? text
            : text.contains(".") ? (Object) Double.parseDouble(text) : new BigInteger(text);
      case "bool":
        return text.equals("t");
      case "timestamp":
      case "date":
        return text.replace(' ', 'T');
      case "timestamptz":
        return text.replace(' ', 'T').replaceFirst("\\+00$", "+00:00");
      default:
        return text;
    }
  }

  private static String parsed(Column column, String text) {
    try {
      return json(JSON.readValue(text, Object.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("column " + column.name() + " holds no JSON: " + text, e);
    }
  }

  /**
   * The value a generic mirror row holds for {@code column} (null when the mirror lacks the
   * column).
   */
  static String fromMirror(Object v, Column column) {
    if (v == null || column == null) {
      return v == null ? null : String.valueOf(v);
    }
    switch (column.type()) {
      case INTEGER:
        return v instanceof Integer || v instanceof Long || v instanceof BigInteger
            ? new BigInteger(v.toString()).toString()
            : mismatch(v, column);
      case FLOAT:
        {
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
        return json(isSpatial(column) ? doubles(v) : v);
      default: // strings in every other form: decimals, text, base64, temporal values
        return v instanceof String s ? s : mismatch(v, column);
    }
  }

  /** MySQL/MariaDB spatial types: their JSON form is GeoJSON ({@link GeoJsonOfWkb}). */
  private static boolean isSpatial(Column column) {
    return SPATIAL.contains(column.databaseType().toLowerCase(java.util.Locale.ROOT));
  }

  /** MySQL/MariaDB {@code bit(n)}: its JSON form is n binary digits. */
  private static boolean isMysqlBit(Column column) {
    return column.databaseType().toLowerCase(java.util.Locale.ROOT).startsWith("bit(");
  }

  /** The value of a {@code bit(n)} column (big-endian bytes) as exactly {@code n} binary digits. */
  private static String bits(byte[] bytes, int n) {
    String digits = new BigInteger(1, bytes).toString(2);
    return "0".repeat(Math.max(0, n - digits.length())) + digits;
  }

  /** A GeoJSON value with every number as a double, so 1 and 1.0 compare equal. */
  private static Object doubles(Object v) {
    if (v instanceof Number n) {
      return n.doubleValue();
    }
    if (v instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(e -> out.add(doubles(e)));
      return out;
    }
    if (v instanceof java.util.Map<?, ?> map) {
      java.util.Map<Object, Object> out = new java.util.LinkedHashMap<>();
      map.forEach((k, e) -> out.put(k, doubles(e)));
      return out;
    }
    return v;
  }

  private static String mismatch(Object v, Column column) {
    return "MISMATCH: "
        + v.getClass().getSimpleName()
        + " "
        + v
        + " is not a JSON form of "
        + column.type();
  }

  /** PostgreSQL {@code real}, MySQL {@code float}: compared at single precision. */
  private static boolean singlePrecision(Column column) {
    String t = column.databaseType().toLowerCase(java.util.Locale.ROOT);
    return t.equals("float4") || t.startsWith("float") && !t.equals("float8");
  }

  /** The fraction digits a MySQL type declares: {@code datetime(6)} → 6, {@code datetime} → 0. */
  private static int declaredDigits(Column column) {
    Matcher m = DECLARED_DIGITS.matcher(column.databaseType());
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
