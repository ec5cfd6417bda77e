package io.tablecast.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.Column;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Exact comparison forms, computed by the database itself, for the column types {@link ExactValues}
 * has no form for ({@link ExactValues#hasExactForm}): spatial types, ranges, composite types,
 * {@code hstore}, {@code tsvector}, {@code money}, {@code ltree}, arrays of them. Both sides of a
 * comparison become the database's canonical text of the value:
 *
 * <ul>
 *   <li>PostgreSQL: the table side is the type's text output; the mirror's value is turned back
 *       into the column's type (as {@code jsonb_populate_record} reads JSON, or by casting its
 *       text, or for an {@code hstore} held as a JSON object, from its pairs) and printed the same
 *       way.
 *   <li>MariaDB/MySQL spatial columns: {@code SRID;WKT} of the stored value, and of the mirror's
 *       value read as GeoJSON, WKT, or WKB / the internal SRID+WKB form in base64 or hex.
 * </ul>
 *
 * <p>Any documented form whose value is the table's value compares equal; a value the database
 * cannot read back as the column's type, or that reads back as another value, compares unequal (its
 * text then starts with {@code MISMATCH}). Results are cached per value. Not thread-safe.
 */
final class DatabaseForms {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SPATIAL_FORM =
      "SELECT CONCAT(ST_SRID(g), ';', ST_AsText(g)) FROM (SELECT %s AS g) v";

  private final Connection c;
  private final boolean postgres;
  private final Map<String, String> cache = new HashMap<>();
  private final Map<String, String> sqlTypes = new HashMap<>();

  DatabaseForms(Connection c, boolean postgres) {
    this.c = c;
    this.postgres = postgres;
  }

  /** Column {@code i} of a row of {@code SELECT *} of {@code table}. */
  String fromDatabase(ResultSet rs, int i, String table, Column column) throws SQLException {
    if (postgres || !spatial(column)) {
      return rs.getString(i);
    }
    byte[] stored = rs.getBytes(i);
    if (stored == null) {
      return null;
    }
    String key = "stored|" + HexFormat.of().formatHex(stored);
    String form = cache.get(key);
    if (form == null) {
      form = query(String.format(SPATIAL_FORM, "?"), stored);
      cache.put(key, form);
    }
    return form;
  }

  /** The value a generic mirror row holds for {@code column} of {@code table}. */
  String fromMirror(Object v, String table, Column column) {
    if (v == null) {
      return null;
    }
    String json = json(v);
    String key = table + "." + column.name() + "|" + json;
    String form = cache.get(key);
    if (form == null) {
      form = postgres ? postgresForm(v, json, table, column) : mysqlForm(v, json, column);
      cache.put(key, form);
    }
    return form;
  }

  private String postgresForm(Object v, String json, String table, Column column) {
    List<String> failures = new ArrayList<>();
    String type = sqlType(table, column.name());
    String populated =
        attempt(
            failures,
            "SELECT (jsonb_populate_record(NULL::"
                + quoted(table)
                + ", jsonb_build_object(?::text, ?::jsonb)))."
                + quotedIdentifier(column.name())
                + "::text",
            column.name(),
            json);
    if (populated != null) {
      return populated;
    }
    if (v instanceof String s) {
      String cast = attempt(failures, "SELECT CAST(?::text AS " + type + ")::text", s);
      if (cast != null) {
        return cast;
      }
    }
    if (v instanceof Map<?, ?> pairs && type.endsWith("hstore")) {
      String cast =
          attempt(failures, "SELECT CAST(?::text AS " + type + ")::text", hstoreText(pairs));
      if (cast != null) {
        return cast;
      }
    }
    return "MISMATCH: " + json + " does not read back as a " + type + " " + failures;
  }

  private String mysqlForm(Object v, String json, Column column) {
    if (!spatial(column)) {
      return String.valueOf(v);
    }
    List<String> failures = new ArrayList<>();
    String text = v instanceof String s ? s.strip() : null;
    if (text == null || text.startsWith("{")) {
      String geoJson =
          attempt(
              failures,
              String.format(SPATIAL_FORM, "ST_GeomFromGeoJSON(?, 1, 0)"),
              text == null ? json : text);
      if (geoJson != null) {
        return geoJson;
      }
    } else {
      String wkt = attempt(failures, String.format(SPATIAL_FORM, "ST_GeomFromText(?)"), text);
      if (wkt != null) {
        return wkt;
      }
      for (byte[] bytes :
          decodings(text)) { // a reading counts only if it encodes back to the same bytes
        String wkb =
            attempt(
                failures,
                "SELECT IF(ST_AsBinary(g) = ?, CONCAT(ST_SRID(g), ';', ST_AsText(g)), NULL) "
                    + "FROM (SELECT ST_GeomFromWKB(?) AS g) v",
                bytes,
                bytes);
        String internal =
            wkb != null
                ? wkb
                : attempt(
                    failures,
                    "SELECT IF(CAST(ST_GeomFromWKB(ST_AsBinary(g), "
                        + "ST_SRID(g)) AS BINARY) = CAST(g AS BINARY), CONCAT(ST_SRID(g), ';', ST_AsText(g)), NULL) "
                        + "FROM (SELECT ? AS g) v",
                    bytes);
        if (internal != null) {
          return internal;
        }
      }
    }
    return "MISMATCH: "
        + json
        + " reads as no "
        + column.databaseType()
        + " (GeoJSON, WKT, WKB) "
        + failures;
  }

  private static List<byte[]> decodings(String text) {
    List<byte[]> out = new ArrayList<>();
    try {
      out.add(Base64.getDecoder().decode(text));
    } catch (IllegalArgumentException notBase64) {
      // next
    }
    try {
      out.add(HexFormat.of().parseHex(text.startsWith("0x") ? text.substring(2) : text));
    } catch (IllegalArgumentException notHex) {
      // next
    }
    return out;
  }

  static boolean spatial(Column column) {
    String t = column.databaseType().toLowerCase(Locale.ROOT);
    return t.contains("geometry")
        || t.contains("point")
        || t.contains("linestring")
        || t.contains("polygon");
  }

  /**
   * The first column of the query's single row; null (with the reason noted) when it fails or is
   * NULL.
   */
  private String attempt(List<String> failures, String sql, Object... params) {
    try {
      String result = query(sql, params);
      if (result == null) {
        failures.add("NULL from " + sql);
      }
      return result;
    } catch (SQLException e) {
      failures.add(e.getMessage().lines().findFirst().orElse(""));
      return null;
    }
  }

  private String query(String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /**
   * The column's declared type as PostgreSQL spells it ({@code format_type}), qualified when not on
   * the path.
   */
  private String sqlType(String table, String column) {
    return sqlTypes.computeIfAbsent(
        table + "." + column,
        k -> {
          try {
            String type =
                query(
                    "SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                        + "WHERE a.attrelid = ?::regclass AND a.attname = ?",
                    quoted(table),
                    column);
            if (type == null) {
              throw new IllegalStateException("no column " + column + " in " + table);
            }
            return type;
          } catch (SQLException e) {
            throw new IllegalStateException(
                "cannot read the type of " + table + "." + column + ": " + e.getMessage(), e);
          }
        });
  }

  /** {@code "k"=>"v", ...} with hstore's quoting, from a JSON object's pairs. */
  private static String hstoreText(Map<?, ?> pairs) {
    StringBuilder sb = new StringBuilder();
    pairs.forEach(
        (k, v) -> {
          sb.append(sb.length() == 0 ? "" : ", ")
              .append(hstoreQuoted(String.valueOf(k)))
              .append("=>");
          sb.append(v == null ? "NULL" : hstoreQuoted(v instanceof String s ? s : json(v)));
        });
    return sb.toString();
  }

  private static String hstoreQuoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String quoted(String qualifiedTable) {
    int dot = qualifiedTable.indexOf('.');
    return quotedIdentifier(qualifiedTable.substring(0, dot))
        + "."
        + quotedIdentifier(qualifiedTable.substring(dot + 1));
  }

  private static String quotedIdentifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String json(Object v) {
    try {
      return JSON.writeValueAsString(v);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render " + v + " as JSON", e);
    }
  }
}
