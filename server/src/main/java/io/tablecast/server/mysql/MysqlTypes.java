package io.tablecast.server.mysql;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MySQL / MariaDB catalog type names to {@link ColumnKind}s, and the SQL expression that turns a
 * column's value into its JSON form (shared by triggers, snapshots and reads by key); see
 * docs/TYPES.md.
 */
final class MysqlTypes {
  /**
   * {@code information_schema.COLUMNS.DATA_TYPE} of the spatial types (MySQL 8 also says {@code
   * geomcollection}).
   */
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

  private static final Pattern BIT = Pattern.compile("(?i)^bit\\((\\d+)\\)");

  private MysqlTypes() {}

  /**
   * From {@code information_schema.COLUMNS}.
   *
   * @param jsonChecked MariaDB: the column has a {@code json_valid(col)} check (its JSON type)
   * @return the kind, or null when unsupported
   */
  static ColumnKind kind(String dataType, String columnType, boolean jsonChecked) {
    String t = dataType.toLowerCase(Locale.ROOT);
    if (SPATIAL.contains(t)) {
      return ColumnKind.JSON; // GeoJSON
    }
    switch (t) {
      case "tinyint":
        return columnType.toLowerCase(Locale.ROOT).startsWith("tinyint(1)")
            ? ColumnKind.BOOLEAN
            : ColumnKind.INTEGER;
      case "smallint":
      case "mediumint":
      case "int":
      case "integer":
      case "bigint":
      case "year":
        return ColumnKind.INTEGER;
      case "decimal":
      case "numeric":
        return ColumnKind.DECIMAL;
      case "float":
      case "double":
      case "real":
      case "double precision":
        return ColumnKind.FLOAT;
      case "longtext":
        return jsonChecked ? ColumnKind.JSON : ColumnKind.STRING;
      case "char":
      case "varchar":
      case "tinytext":
      case "text":
      case "mediumtext":
      case "enum":
      case "set":
      case "uuid":
      case "inet4":
      case "inet6":
        return jsonChecked ? ColumnKind.JSON : ColumnKind.STRING;
      case "bit":
        return ColumnKind.STRING; // n binary digits
      case "binary":
      case "varbinary":
      case "tinyblob":
      case "blob":
      case "mediumblob":
      case "longblob":
        return ColumnKind.BINARY;
      case "date":
        return ColumnKind.DATE;
      case "time":
        return ColumnKind.TIME;
      case "datetime":
        return ColumnKind.TIMESTAMP;
      case "timestamp":
        return ColumnKind.TIMESTAMP_TZ;
      case "json":
        return ColumnKind.JSON;
      default:
        return null;
    }
  }

  /** Kinds whose {@code JSON_OBJECT} form is the value itself: a number, or a string. */
  private static final Set<ColumnKind> TEXT_KINDS =
      Set.of(ColumnKind.INTEGER, ColumnKind.DECIMAL, ColumnKind.BOOLEAN, ColumnKind.STRING);

  /** Date-time kinds: their {@code JSON_OBJECT} form is the value's text on MariaDB. */
  private static final Set<ColumnKind> DATE_TIME_KINDS =
      Set.of(ColumnKind.DATE, ColumnKind.TIME, ColumnKind.TIMESTAMP);

  /**
   * Whether {@code c}'s JSON form is the text of its {@link #jsonValue} as the server sends it (a
   * number printed bare, or a string): columns {@code JSON_OBJECT} takes as they are, of a kind
   * that reads a number or a string (not BIT, binary or JSON columns); on MariaDB DATE, TIME,
   * DATETIME, DOUBLE and FLOAT (as {@code CAST(col AS DOUBLE)}, its exact double) ({@link
   * MysqlFlavor#jsonObjectEmbedsTexts}); TIMESTAMP, whose value is the number {@code
   * UNIX_TIMESTAMP} gives. A table of such columns is read as their texts in whole-table, range and
   * by-key reads, where the database would otherwise build a JSON object per row (a million rows of
   * the benchmark table on MariaDB: 2.1 s as {@code JSON_OBJECT}, 0.7 s as columns;
   * docs/BENCHMARKS.md).
   */
  static boolean readAsText(MysqlFlavor flavor, ColumnInfo c) {
    if (c.kind() == ColumnKind.TIMESTAMP_TZ) {
      return true;
    }
    if (DATE_TIME_KINDS.contains(c.kind()) || c.kind() == ColumnKind.FLOAT) {
      return flavor.jsonObjectEmbedsTexts;
    }
    return TEXT_KINDS.contains(c.kind()) && (isYear(c) || jsonValue(c, "c").equals("c"));
  }

  /**
   * The SQL expression giving {@code ref}'s value as the text a column-texts read takes ({@link
   * #readAsText}): {@link #jsonValue}'s, and a date-time cast to its text, which MariaDB
   * Connector/J would otherwise parse into a {@code LocalDateTime} and format back for {@code
   * getString} (nearly half of the reading thread's time in a snapshot of a table with a {@code
   * DATETIME}, by a JFR profile).
   */
  static String textValue(ColumnInfo c, String ref) {
    return DATE_TIME_KINDS.contains(c.kind()) ? "CAST(" + ref + " AS CHAR)" : jsonValue(c, ref);
  }

  /** A {@code YEAR} column: its zero prints {@code 0000}, and the text {@code '0'} reads 2000. */
  static boolean isYear(ColumnInfo c) {
    return c.dbType().toLowerCase(Locale.ROOT).startsWith("year");
  }

  /** Whether {@code dataType} (from {@code information_schema.COLUMNS}) is a spatial type. */
  static boolean isSpatial(String dataType) {
    return SPATIAL.contains(dataType.toLowerCase(Locale.ROOT));
  }

  /**
   * The {@link ColumnInfo#dbType()} of a column: {@code json} for JSON columns, else its column
   * type.
   */
  static String dbType(String dataType, String columnType, ColumnKind kind) {
    return kind == ColumnKind.JSON && !isSpatial(dataType) ? "json" : columnType;
  }

  /**
   * The SQL expression giving {@code ref}'s value in the form {@code JSON_OBJECT} turns into the
   * column's JSON form (docs/TYPES.md).
   */
  static String jsonValue(ColumnInfo c, String ref) {
    if (c.kind() == ColumnKind.BINARY) {
      return "REPLACE(TO_BASE64(" + ref + "), CHAR(10 USING ascii), '')";
    }
    if (c.kind() == ColumnKind.TIMESTAMP_TZ) {
      return "UNIX_TIMESTAMP(" + ref + ")"; // independent of the session time zone
    }
    if (isSinglePrecision(c)) {
      return "CAST("
          + ref
          + " AS DOUBLE)"; // JSON_OBJECT prints FLOAT with 6 digits (16777217 -> 16777200)
    }
    if (c.kind() == ColumnKind.JSON && isSpatial(c.dbType())) {
      // ST_AsGeoJSON without a precision argument prints each coordinate in the shortest form that
      // reads back as the same double (MariaDB 10.11: checked on 100,000 random points; with a
      // max_decimals argument it rounds). The SRID, which GeoJSON has no place for, goes into a
      // GeoJSON 2008 "crs" member, the form of MySQL's ST_AsGeoJSON(g, n, 2). JSON_EXTRACT makes
      // the text a JSON value, so JSON_OBJECT embeds it instead of quoting it.
      String geoJson = "ST_AsGeoJSON(" + ref + ")";
      return "JSON_EXTRACT(IF(ST_SRID("
          + ref
          + ") = 0, "
          + geoJson
          + ", JSON_INSERT("
          + geoJson
          + ", '$.crs', "
          + "JSON_OBJECT('type', 'name', 'properties', JSON_OBJECT('name', CONCAT('EPSG:', ST_SRID("
          + ref
          + ')'
          + "))))), '$')";
    }
    int bits = bitWidth(c);
    if (bits > 0) {
      return "LPAD(BIN(" + ref + "), " + bits + ", '0')"; // JSON_OBJECT would print the raw bytes
    }
    if (isYear(c)) {
      return "(" + ref + " + 0)"; // JSON_OBJECT prints year zero as 0000, which is no JSON
    }
    return ref;
  }

  /**
   * The SQL expression that turns a key value, bound as the text of its JSON form, back into a
   * value comparable with the column (reads by key).
   */
  static String keyParameter(ColumnInfo c) {
    if (c.kind() == ColumnKind.BINARY) {
      return "FROM_BASE64(?)";
    }
    if (c.kind() == ColumnKind.TIMESTAMP_TZ) {
      return "FROM_UNIXTIME(CAST(? AS DECIMAL(20, 6)))";
    }
    if (bitWidth(c) > 0) {
      return "CAST(CONV(?, 2, 10) AS UNSIGNED)";
    }
    if (isYear(c)) {
      return "CAST(? AS UNSIGNED)"; // as text, '0' would be the year 2000
    }
    return "?";
  }

  /** An ENUM or SET column: ordered by its number (declaration order, bits), not by its text. */
  static boolean isEnumOrSet(ColumnInfo c) {
    String t = c.dbType().toLowerCase(java.util.Locale.ROOT);
    return t.startsWith("enum(") || t.startsWith("set(");
  }

  /**
   * A key column's value as text that {@link #resumeParameter} reads back exactly, to resume a
   * key-order scan after it: binary as base64, BIT and ENUM/SET as their number, others as the
   * server prints them.
   */
  static String resumeText(ColumnInfo c, String ref) {
    if (c.kind() == ColumnKind.BINARY) {
      return "TO_BASE64(" + ref + ")";
    }
    if (c.kind() == ColumnKind.TIMESTAMP_TZ) { // an instant, whatever the session's time zone
      return "CAST(UNIX_TIMESTAMP(" + ref + ") AS CHAR)";
    }
    if (bitWidth(c) > 0 || isEnumOrSet(c)) {
      return "CAST(" + ref + " + 0 AS CHAR)";
    }
    return "CAST(" + ref + " AS CHAR)";
  }

  /** The parameter reading a {@link #resumeText}. */
  static String resumeParameter(ColumnInfo c) {
    if (c.kind() == ColumnKind.BINARY || c.kind() == ColumnKind.TIMESTAMP_TZ) {
      return keyParameter(c);
    }
    if (bitWidth(c) > 0 || isEnumOrSet(c)) {
      return "CAST(? AS UNSIGNED)";
    }
    return "?";
  }

  /**
   * The column as compared with a {@link #resumeParameter}: ENUM/SET by number, as ORDER BY orders
   * them (an expression, so such a key is filtered rather than range-scanned: correct, slower).
   */
  static String resumeComparable(ColumnInfo c, String ref) {
    return isEnumOrSet(c) ? ref + " + 0" : ref;
  }

  /** {@code FLOAT} (single precision): sent as its exact value, shortest form. */
  static boolean isSinglePrecision(ColumnInfo c) {
    return c.kind() == ColumnKind.FLOAT && "float".equalsIgnoreCase(c.dbType());
  }

  /** The width of a {@code bit(n)} column, or 0 for any other column. */
  static int bitWidth(ColumnInfo c) {
    Matcher m = BIT.matcher(c.dbType());
    return c.kind() == ColumnKind.STRING && m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** The error for a column whose type cannot be captured: its name, its type and the way out. */
  static IllegalArgumentException unsupported(TableId table, String column, String columnType) {
    return new IllegalArgumentException(
        "column "
            + table.qualified()
            + "."
            + column
            + " has type "
            + columnType
            + ", which Tablecast cannot capture (docs/TYPES.md lists every type it can); leave the column out with "
            + "exclude_columns, or change its type");
  }
}
