package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The comparison {@link RealisticSchemaTest} relies on for types without a form in {@link
 * ExactValues} ({@link DatabaseForms}), checked before any capture delivers those types: every
 * plausible JSON form of a value (PostgreSQL: what {@code to_jsonb} makes of it and its text;
 * spatial: GeoJSON, WKT, WKB and the internal form in base64 or hex) compares equal to the stored
 * value, and another row's value or garbage compares unequal.
 */
class DatabaseFormsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Column → the SQL of two different values. */
  private static Map<String, String[]> postgresColumns() {
    Map<String, String[]> c = new LinkedHashMap<>();
    c.put("h hstore", new String[] {"'a=>1, \"b c\"=>NULL, \"q\\\"\"=>\"x=>y\"'", "'a=>2'"});
    c.put(
        "addr postal_address",
        new String[] {
          "ROW('1 \"Main\" St, (east)', NULL, 'Köln', '50667', 'DE')",
          "ROW('1 Main St', NULL, 'Köln', '50667', 'DE')"
        });
    c.put(
        "addrs postal_address[]",
        new String[] {
          "ARRAY[ROW('a', NULL, 'b', '1', 'FR')::postal_address]", "ARRAY[]::postal_address[]"
        });
    c.put("p point", new String[] {"point(1.5, -2.25)", "point(1.5, 2.25)"});
    c.put(
        "pg polygon",
        new String[] {
          "polygon(box(point(0, 0), point(1, 1)))", "polygon(box(point(0, 0), point(1, 2)))"
        });
    c.put(
        "r tstzrange",
        new String[] {"tstzrange('2024-01-01 10:00+01', '2024-02-01', '[)')", "'empty'"});
    c.put("ir int4range", new String[] {"int4range(1, 10)", "int4range(NULL, 10)"});
    c.put("m money", new String[] {"1234.5", "-0.01"});
    c.put(
        "ts tsvector",
        new String[] {"to_tsvector('english', 'The quick brown foxes')", "'a:1 b:2'::tsvector"});
    c.put("l ltree", new String[] {"'home.kitchen_2.mugs'", "'home'"});
    c.put("ips inet[]", new String[] {"'{192.0.2.1,2001:db8::1/64}'", "'{}'"});
    c.put(
        "dr daterange[]",
        new String[] {
          "ARRAY[daterange('2026-12-24', '2026-12-27')]",
          "ARRAY[daterange('2026-12-24', '2026-12-28')]"
        });
    c.put("st order_status", new String[] {"'paid'", "'draft'"});
    return c;
  }

  private static Map<String, String[]> mysqlColumns() {
    Map<String, String[]> c = new LinkedHashMap<>();
    c.put("pt POINT NOT NULL", new String[] {"POINT(1.5, -2.25)", "POINT(1.5, 2.25)"});
    c.put(
        "poly POLYGON",
        new String[] {
          "ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))')",
          "ST_GeomFromText('POLYGON((0 0, 2 0, 2 2, 0 2, 0 0))')"
        });
    c.put(
        "g GEOMETRY",
        new String[] {"ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0.5)')", "POINT(0, 0)"});
    return c;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyFormOfAValueEqualsTheStoredValueAndOtherValuesDoNot(Kind kind) throws Exception {
    boolean postgres = kind == Kind.POSTGRESQL;
    Shop shop = Shop.on(kind);
    TestDatabases.Isolated db = kind.isolated("forms");
    Map<String, String[]> columns = postgres ? postgresColumns() : mysqlColumns();
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      shop.prepareSession(c);
      if (postgres) {
        s.execute(
            "CREATE TYPE postal_address AS (line1 text, line2 text, city text, postcode varchar(16), country char(2))");
        s.execute("CREATE TYPE order_status AS ENUM ('draft', 'paid')");
      }
      List<String> defs = new ArrayList<>(columns.keySet());
      s.execute("CREATE TABLE forms (id int PRIMARY KEY, " + String.join(", ", defs) + ")");
      for (int row = 0; row < 2; row++) {
        List<String> values = new ArrayList<>();
        for (String[] v : columns.values()) {
          values.add(v[row]);
        }
        s.execute(
            "INSERT INTO forms VALUES (" + (row + 1) + ", " + String.join(", ", values) + ")");
      }
    }
    String table = db.table("forms");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      DatabaseForms forms = new DatabaseForms(c, postgres);
      for (String def : columns.keySet()) {
        String name = def.substring(0, def.indexOf(' '));
        Column column =
            new Column(
                name,
                def.substring(def.indexOf(' ') + 1).split(" ")[0].toLowerCase(),
                ColumnType.STRING);
        assertThat(ExactValues.hasExactForm(column, postgres))
            .as("%s has no form in ExactValues", def)
            .isFalse();
        String[] stored = new String[2];
        List<List<Object>> mirrorForms = new ArrayList<>();
        for (int row = 0; row < 2; row++) {
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT "
                      + name
                      + ", "
                      + alternatives(postgres, name)
                      + " FROM "
                      + table
                      + " WHERE id = "
                      + (row + 1))) {
            rs.next();
            stored[row] = forms.fromDatabase(rs, 1, table, column);
            mirrorForms.add(mirrorForms(postgres, rs));
          }
        }
        assertThat(stored[0])
            .as("%s: the two rows' values", def)
            .isNotEqualTo(stored[1])
            .doesNotStartWith("MISMATCH");
        for (int row = 0; row < 2; row++) {
          for (Object form : mirrorForms.get(row)) {
            assertThat(forms.fromMirror(form, table, column))
                .as("%s row %d held as %s", def, row + 1, form)
                .isEqualTo(stored[row]);
          }
        }
        assertThat(forms.fromMirror("'unclosed ((", table, column))
            .as("%s: garbage", def)
            .startsWith("MISMATCH");
      }
    }
  }

  @Test
  void exactValuesKnowsTheDocumentedTypesOnly() {
    assertThat(
            ExactValues.hasExactForm(
                new Column("a", "int(10) unsigned", ColumnType.INTEGER), false))
        .isTrue();
    assertThat(ExactValues.hasExactForm(new Column("a", "varbit(32)", ColumnType.STRING), true))
        .isTrue();
    assertThat(ExactValues.hasExactForm(new Column("a", "varchar[]", ColumnType.JSON), true))
        .isTrue();
    assertThat(ExactValues.hasExactForm(new Column("a", "inet[]", ColumnType.JSON), true))
        .isFalse();
    assertThat(ExactValues.hasExactForm(new Column("a", "point", ColumnType.BINARY), false))
        .isFalse();
    assertThat(ExactValues.hasExactForm(new Column("a", "hstore", ColumnType.JSON), true))
        .isFalse();
  }

  /** SQL giving a value's other representations, read by {@link #mirrorForms}. */
  private static String alternatives(boolean postgres, String column) {
    return postgres
        ? "to_jsonb(" + column + ")::text, " + column + "::text"
        : "ST_AsGeoJSON("
            + column
            + "), ST_AsText("
            + column
            + "), ST_AsBinary("
            + column
            + "), "
            + column;
  }

  private static List<Object> mirrorForms(boolean postgres, ResultSet rs) throws Exception {
    List<Object> out = new ArrayList<>();
    if (postgres) {
      out.add(JSON.readValue(rs.getString(2), Object.class)); // what to_jsonb makes of it
      out.add(rs.getString(3)); // its text
      return out;
    }
    out.add(JSON.readValue(rs.getString(2), Object.class)); // GeoJSON object
    out.add(rs.getString(2)); // GeoJSON text
    out.add(rs.getString(3)); // WKT
    out.add(Base64.getEncoder().encodeToString(rs.getBytes(4))); // WKB
    out.add(HexFormat.of().formatHex(rs.getBytes(4)));
    out.add(Base64.getEncoder().encodeToString(rs.getBytes(5))); // SRID + WKB, as stored
    return out;
  }
}
