package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeType;
import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import io.tablecast.client.TableMirror;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.testing.PostgresExtensions;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every type of docs/TYPES.md, end to end (triggers → outbox → server → Java client), on both
 * database families: after the snapshot, after live inserts, updates (values to other values, to
 * NULL and from NULL) and deletes, the mirror equals {@code SELECT *} of the table value by value,
 * both in the JSON forms of docs/TYPES.md ({@link ExactValues}); every event's old and new image
 * equals the table row before and after it. The exact JSON text of each type is pinned in the
 * server's {@code capture/TypeFidelityTest}.
 */
class EveryTypeEndToEndTest {

  /** A column: its SQL type, its kind, and two values (SQL literals) rows switch between. */
  record Col(String type, ColumnKind kind, String a, String b) {}

  private static Map<String, Col> mysqlColumns(boolean mariadb) {
    Map<String, Col> c = new LinkedHashMap<>();
    c.put("ti", new Col("TINYINT", ColumnKind.INTEGER, "-128", "127"));
    c.put("uti", new Col("TINYINT UNSIGNED", ColumnKind.INTEGER, "255", "0"));
    c.put("si", new Col("SMALLINT", ColumnKind.INTEGER, "-32768", "32767"));
    c.put("mi", new Col("MEDIUMINT", ColumnKind.INTEGER, "-8388608", "8388607"));
    c.put("i", new Col("INT", ColumnKind.INTEGER, "-2147483648", "2147483647"));
    c.put("ui", new Col("INT UNSIGNED", ColumnKind.INTEGER, "4294967295", "0"));
    c.put(
        "bi", new Col("BIGINT", ColumnKind.INTEGER, "-9223372036854775808", "9223372036854775807"));
    c.put("ubi", new Col("BIGINT UNSIGNED", ColumnKind.INTEGER, "18446744073709551615", "0"));
    c.put("y", new Col("YEAR", ColumnKind.INTEGER, "2024", "1901"));
    c.put(
        "b", new Col("BOOLEAN", ColumnKind.BOOLEAN, "2", "0")); // tinyint(1): any non-zero is true
    c.put("d", new Col("DECIMAL(12,4)", ColumnKind.DECIMAL, "12.3400", "-0.0001"));
    c.put("d0", new Col("DECIMAL(10,0)", ColumnKind.DECIMAL, "42", "-9999999999"));
    c.put(
        "dbig",
        new Col(
            "DECIMAL(65,30)",
            ColumnKind.DECIMAL,
            "12345678901234567890123456789012345.123456789012345678901234567890",
            "-0.000000000000000000000000000001"));
    c.put("f", new Col("FLOAT", ColumnKind.FLOAT, "0.25", "-1.5"));
    c.put(
        "db",
        new Col("DOUBLE", ColumnKind.FLOAT, "0.30000000000000004e0", "-1.7976931348623157e308"));
    c.put("c", new Col("CHAR(5)", ColumnKind.STRING, "'ab'", "'é😀'"));
    c.put("vc", new Col("VARCHAR(50)", ColumnKind.STRING, "'héllo 😀'", "''"));
    c.put(
        "tt", new Col("TINYTEXT", ColumnKind.STRING, "'tiny ✓'", "'quote \" and \\\\ backslash'"));
    c.put("tx", new Col("TEXT", ColumnKind.STRING, "'naïve ✓ text'", "'line 1\\nline 2\\ttab'"));
    c.put("mt", new Col("MEDIUMTEXT", ColumnKind.STRING, "'medium 🚀'", "'日本語'"));
    c.put("lt", new Col("LONGTEXT", ColumnKind.STRING, "REPEAT('long ünïcødé 😀 ', 20)", "'x'"));
    c.put("e", new Col("ENUM('red','green','bleu ü')", ColumnKind.STRING, "'green'", "'bleu ü'"));
    c.put("st", new Col("SET('a','b','c')", ColumnKind.STRING, "'a,c'", "''"));
    c.put("bin", new Col("BINARY(3)", ColumnKind.BINARY, "x'000102'", "x'ffff00'"));
    c.put("vb", new Col("VARBINARY(10)", ColumnKind.BINARY, "x'ff00'", "x''"));
    c.put("tb", new Col("TINYBLOB", ColumnKind.BINARY, "x'01'", "x'fe'"));
    c.put("bl", new Col("BLOB", ColumnKind.BINARY, "REPEAT(x'ab', 100)", "x'00'"));
    c.put("mb", new Col("MEDIUMBLOB", ColumnKind.BINARY, "x'0203'", "REPEAT(x'00ff', 40)"));
    c.put("lb", new Col("LONGBLOB", ColumnKind.BINARY, "REPEAT(x'00ff10', 60)", "x''"));
    c.put("dt", new Col("DATE", ColumnKind.DATE, "'2024-02-29'", "'1000-01-01'"));
    c.put("tm", new Col("TIME(6)", ColumnKind.TIME, "'13:45:30.123456'", "'-838:59:59.000000'"));
    c.put("tm0", new Col("TIME", ColumnKind.TIME, "'100:00:01'", "'-00:00:01'"));
    c.put(
        "dtm",
        new Col(
            "DATETIME(6)",
            ColumnKind.TIMESTAMP,
            "'2024-02-29 13:45:30.123456'",
            "'1999-12-31 23:59:59.100000'"));
    c.put(
        "dtm3",
        new Col(
            "DATETIME(3)",
            ColumnKind.TIMESTAMP,
            "'2024-02-29 13:45:30.120'",
            "'2024-02-29 00:00:00'"));
    c.put(
        "dtm0",
        new Col(
            "DATETIME", ColumnKind.TIMESTAMP, "'2024-02-29 13:45:30'", "'9999-12-31 23:59:59'"));
    c.put(
        "ts",
        new Col(
            "TIMESTAMP(6) NULL",
            ColumnKind.TIMESTAMP_TZ,
            "'2024-02-29 13:45:30.123456'",
            "'2038-01-18 03:14:07.999999'"));
    c.put(
        "ts0",
        new Col(
            "TIMESTAMP NULL",
            ColumnKind.TIMESTAMP_TZ,
            "'2000-01-01 00:00:00'",
            "'2024-02-29 13:45:30'"));
    c.put(
        "j",
        new Col(
            "JSON",
            ColumnKind.JSON,
            "'{\"a\": [1, 2.50, null, true], \"s\": \"x é😀\", \"n\": {\"k\": -1}}'",
            "'[1, \"two\", 3.5, 18446744073709551615]'"));
    // spatial types as GeoJSON (an SRID other than 0 as a "crs" member), BIT(n) as n binary digits
    c.put(
        "geo",
        new Col(
            "GEOMETRY",
            ColumnKind.JSON,
            "ST_GeomFromText('POINT(1 2)', 4326)",
            "ST_GeomFromText('GEOMETRYCOLLECTION EMPTY')"));
    c.put(
        "pt",
        new Col(
            "POINT",
            ColumnKind.JSON,
            "ST_GeomFromText('POINT(0.30000000000000004 -1e300)')",
            "ST_GeomFromText('POINT(-1.5 2)', 3857)"));
    c.put(
        "ls",
        new Col(
            "LINESTRING",
            ColumnKind.JSON,
            "ST_GeomFromText('LINESTRING(0.1 0.2, 1.2345678901234567 -98765.43210987654321)')",
            "ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0)')"));
    c.put(
        "pg",
        new Col(
            "POLYGON",
            ColumnKind.JSON,
            "ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))')",
            "ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))')"));
    c.put(
        "mpt",
        new Col(
            "MULTIPOINT",
            ColumnKind.JSON,
            "ST_GeomFromText('MULTIPOINT(1 1, 2.5 2)')",
            "ST_GeomFromText('MULTIPOINT(0 0)')"));
    c.put(
        "mls",
        new Col(
            "MULTILINESTRING",
            ColumnKind.JSON,
            "ST_GeomFromText('MULTILINESTRING((0 0, 1 1), (2 2, 3 3))')",
            "ST_GeomFromText('MULTILINESTRING((5 5, 6 6))')"));
    c.put(
        "mpg",
        new Col(
            "MULTIPOLYGON",
            ColumnKind.JSON,
            "ST_GeomFromText('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((2 2, 3 2, 3 3, 2 2), (2.1 2.1, 2.2 2.1, 2.2 2.2, 2.1 2.1)))')",
            "ST_GeomFromText('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))')"));
    c.put(
        "gc",
        new Col(
            "GEOMETRYCOLLECTION",
            ColumnKind.JSON,
            "ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1), POLYGON((0 0, 1 0, 1 1, 0 0)))')",
            "ST_GeomFromText('GEOMETRYCOLLECTION(MULTIPOINT(1 1, 2 2), GEOMETRYCOLLECTION(POINT(3 4)))')"));
    c.put("bt1", new Col("BIT(1)", ColumnKind.STRING, "b'1'", "b'0'"));
    c.put("bt5", new Col("BIT(5)", ColumnKind.STRING, "b'00101'", "b'11111'"));
    c.put(
        "bt64",
        new Col(
            "BIT(64)",
            ColumnKind.STRING,
            "b'1000000000000000000000000000000000000000000000000000000000000001'",
            "0"));
    if (mariadb) {
      c.put(
          "u",
          new Col(
              "UUID",
              ColumnKind.STRING,
              "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
              "'00000000-0000-0000-0000-000000000000'"));
      c.put("i4", new Col("INET4", ColumnKind.STRING, "'192.168.0.1'", "'0.0.0.0'"));
      c.put("i6", new Col("INET6", ColumnKind.STRING, "'::ffff:1.2.3.4'", "'2001:db8::1'"));
    }
    return c;
  }

  private static Map<String, Col> postgresColumns(
      String schema, String citext, String hstore, String ltree) {
    Map<String, Col> c = new LinkedHashMap<>();
    c.put("si", new Col("smallint", ColumnKind.INTEGER, "-32768", "32767"));
    c.put("i", new Col("integer", ColumnKind.INTEGER, "-2147483648", "2147483647"));
    c.put(
        "bi", new Col("bigint", ColumnKind.INTEGER, "-9223372036854775808", "9223372036854775807"));
    c.put("n", new Col("numeric(12,4)", ColumnKind.DECIMAL, "12.3400", "-0.0001"));
    c.put(
        "nn",
        new Col(
            "numeric",
            ColumnKind.DECIMAL,
            "'NaN'",
            "123456789012345678901234567890.000000000000000000001"));
    c.put("r", new Col("real", ColumnKind.FLOAT, "0.25", "'-Infinity'"));
    c.put("dp", new Col("double precision", ColumnKind.FLOAT, "0.30000000000000004", "'NaN'"));
    c.put("b", new Col("boolean", ColumnKind.BOOLEAN, "true", "false"));
    c.put("c", new Col("char(5)", ColumnKind.STRING, "'ab'", "'é😀'"));
    c.put("vc", new Col("varchar(50)", ColumnKind.STRING, "'héllo 😀'", "''"));
    c.put(
        "tx",
        new Col(
            "text", ColumnKind.STRING, "'quote \" and \\ backslash'", "E'line 1\\nline 2\\ttab'"));
    c.put("nm", new Col("name", ColumnKind.STRING, "'a name'", "'日本語'"));
    c.put("ci", new Col(citext, ColumnKind.STRING, "'MiXeD Case'", "'ü'"));
    c.put("e", new Col(schema + ".mood", ColumnKind.STRING, "'happy'", "'sad'"));
    c.put(
        "u",
        new Col(
            "uuid",
            ColumnKind.STRING,
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
            "'00000000-0000-0000-0000-000000000000'"));
    c.put("ia", new Col("inet", ColumnKind.STRING, "'192.168.0.1/24'", "'2001:db8::1'"));
    c.put("cd", new Col("cidr", ColumnKind.STRING, "'10.1.0.0/16'", "'2001:db8::/32'"));
    c.put("m", new Col("macaddr", ColumnKind.STRING, "'08:00:2b:01:02:03'", "'ff:ff:ff:ff:ff:ff'"));
    c.put(
        "m8",
        new Col(
            "macaddr8",
            ColumnKind.STRING,
            "'08:00:2b:01:02:03:04:05'",
            "'00:00:00:00:00:00:00:00'"));
    c.put("bt", new Col("bit(4)", ColumnKind.STRING, "B'1010'", "B'0000'"));
    c.put("vbt", new Col("varbit(8)", ColumnKind.STRING, "B'101'", "B''"));
    c.put("x", new Col("xml", ColumnKind.STRING, "'<a k=\"v\">x &amp; y</a>'", "'<empty/>'"));
    c.put(
        "iv",
        new Col(
            "interval",
            ColumnKind.STRING,
            "'1 day 02:00:00'",
            "'-1 years -2 mons +3 days -04:05:06.5'"));
    c.put("ttz", new Col("timetz", ColumnKind.STRING, "'13:45:30+02'", "'23:59:59.999999-05:30'"));
    c.put("by", new Col("bytea", ColumnKind.BINARY, "'\\x000102'", "'\\x'"));
    c.put("dt", new Col("date", ColumnKind.DATE, "'2024-02-29'", "'infinity'"));
    c.put("dtn", new Col("date", ColumnKind.DATE, "'0001-01-01'", "'-infinity'"));
    c.put("tm", new Col("time(6)", ColumnKind.TIME, "'13:45:30.123456'", "'00:00:00'"));
    c.put("tm0", new Col("time(0)", ColumnKind.TIME, "'23:59:59'", "'13:45:30.5'"));
    c.put(
        "ts",
        new Col(
            "timestamp(6)", ColumnKind.TIMESTAMP, "'2024-02-29 13:45:30.123456'", "'-infinity'"));
    c.put(
        "ts1",
        new Col("timestamp(3)", ColumnKind.TIMESTAMP, "'2024-02-29 13:45:30.5'", "'infinity'"));
    c.put(
        "tz",
        new Col(
            "timestamptz(6)",
            ColumnKind.TIMESTAMP_TZ,
            "'2024-02-29 13:45:30.123456+02'",
            "'infinity'"));
    c.put(
        "tzn",
        new Col(
            "timestamptz",
            ColumnKind.TIMESTAMP_TZ,
            "'1999-12-31 23:59:59.12-05:30'",
            "'-infinity'"));
    c.put(
        "j",
        new Col(
            "json",
            ColumnKind.JSON,
            "'{\"a\": [1, 2.50, null, true], \"s\": \"x é😀\"}'",
            "'\"scalar\"'"));
    c.put(
        "jb",
        new Col(
            "jsonb",
            ColumnKind.JSON,
            "'{\"a\": [1, 2.50], \"n\": {\"k\": -1}}'",
            "'[1, \"two\", 3.5]'"));
    c.put("ai", new Col("int[]", ColumnKind.JSON, "'{1,2,3}'", "'{}'"));
    c.put("at", new Col("text[]", ColumnKind.JSON, "'{\"a\",NULL,\"q\\\"x\"}'", "'{\"é😀\"}'"));
    // every other category (docs/TYPES.md): text search, ranges, hstore, money, geometric, ltree,
    // composite, domains, oid, pg_lsn, jsonpath, "char", xid8, and arrays of them
    c.put("tsv", new Col("tsvector", ColumnKind.STRING, "'a fat cat sat on a mat'", "''"));
    c.put("tsq", new Col("tsquery", ColumnKind.STRING, "'fat & (rat | !cat)'", "'a'"));
    c.put("i4r", new Col("int4range", ColumnKind.STRING, "'[1,5)'", "'empty'"));
    c.put("nr", new Col("numrange", ColumnKind.STRING, "'(1.50,2.5]'", "'(,)'"));
    c.put(
        "tsr",
        new Col(
            "tsrange",
            ColumnKind.STRING,
            "'[2024-02-29 13:45:30.5,2024-03-01)'",
            "'(,2024-01-01]'"));
    c.put(
        "tzr",
        new Col(
            "tstzrange",
            ColumnKind.STRING,
            "'[2024-02-29 13:45:30+02,2024-03-01 00:00+00)'",
            "'[2024-01-01 00:00+00,infinity)'"));
    c.put(
        "dr",
        new Col("daterange", ColumnKind.STRING, "'[2024-01-01,2024-02-01)'", "'[2024-01-01,)'"));
    c.put("i4mr", new Col("int4multirange", ColumnKind.STRING, "'{[1,3), [5,7)}'", "'{}'"));
    c.put(
        "tzmr",
        new Col(
            "tstzmultirange",
            ColumnKind.STRING,
            "'{[2024-01-01 00:00+05,2024-01-02 00:00+05)}'",
            "'{}'"));
    c.put("hs", new Col(hstore, ColumnKind.JSON, "'a=>1, \"b c\"=>NULL, é=>😀'", "''"));
    c.put("mo", new Col("money", ColumnKind.DECIMAL, "1234567.89", "-0.01"));
    c.put("pt", new Col("point", ColumnKind.STRING, "'(1.5,-2)'", "'(0,0)'"));
    c.put("ln", new Col("line", ColumnKind.STRING, "'{1,2,3}'", "'{0,1,0}'"));
    c.put("ls", new Col("lseg", ColumnKind.STRING, "'[(0,0),(1.5,1)]'", "'[(1,1),(2,2)]'"));
    c.put("bx", new Col("box", ColumnKind.STRING, "'(1,1),(0,0)'", "'(2,2),(-1,-1)'"));
    c.put("pa", new Col("path", ColumnKind.STRING, "'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1))'"));
    c.put(
        "pg",
        new Col(
            "polygon", ColumnKind.STRING, "'((0,0),(1,1),(1,0))'", "'((0,0),(0,1),(1,1),(1,0))'"));
    c.put("cc", new Col("circle", ColumnKind.STRING, "'<(1,2),3.5>'", "'<(0,0),1>'"));
    c.put("lt", new Col(ltree, ColumnKind.STRING, "'Top.Science.Astronomy'", "''"));
    c.put(
        "ad",
        new Col(
            schema + ".address",
            ColumnKind.JSON,
            "ROW('Main St', 12345, '2024-02-29 13:45:30+02', " + "'\\x0102', 1.50)",
            "ROW(NULL, NULL, NULL, NULL, NULL)"));
    c.put("pi", new Col(schema + ".posint", ColumnKind.INTEGER, "42", "2147483647"));
    c.put("pn", new Col(schema + ".price", ColumnKind.DECIMAL, "12.3", "0.01"));
    c.put("oi", new Col("oid", ColumnKind.INTEGER, "4294967295", "0"));
    c.put("lsn", new Col("pg_lsn", ColumnKind.STRING, "'16/B374D848'", "'0/0'"));
    c.put("jp", new Col("jsonpath", ColumnKind.STRING, "'$.a[*] ? (@ > 2)'", "'$'"));
    c.put("ch", new Col("\"char\"", ColumnKind.STRING, "'x'", "'y'"));
    c.put("x8", new Col("xid8", ColumnKind.STRING, "'123'", "'0'"));
    c.put("aiv", new Col("interval[]", ColumnKind.JSON, "'{\"1 day\",\"-02:00:00\"}'", "'{}'"));
    c.put("ain", new Col("inet[]", ColumnKind.JSON, "'{10.0.0.1,::1}'", "'{NULL}'"));
    c.put("an", new Col("numeric[]", ColumnKind.JSON, "'{1.50,-2}'", "'{{1,2},{3,4}}'"));
    c.put(
        "atz",
        new Col(
            "timestamptz[]", ColumnKind.JSON, "'{\"2024-02-29 13:45:30.5+02\",infinity}'", "'{}'"));
    c.put("aby", new Col("bytea[]", ColumnKind.JSON, "ARRAY['\\x0001'::bytea, NULL]", "'{}'"));
    c.put("ae", new Col(schema + ".mood[]", ColumnKind.JSON, "'{happy,sad}'", "'{}'"));
    c.put(
        "amo", new Col("money[]", ColumnKind.JSON, "ARRAY[1.5::money, (-1234.5)::money]", "'{}'"));
    c.put(
        "atr",
        new Col(
            "tstzrange[]",
            ColumnKind.JSON,
            "ARRAY['[2024-01-01 00:00+01,2024-01-02 00:00+01)'::tstzrange]",
            "'{}'"));
    c.put("ahs", new Col(hstore + "[]", ColumnKind.JSON, "ARRAY['a=>1'::" + hstore + "]", "'{}'"));
    c.put(
        "aad",
        new Col(
            schema + ".address[]",
            ColumnKind.JSON,
            "ARRAY[ROW('x', 1, '2024-01-01 00:00+03', NULL, 2)::" + schema + ".address]",
            "'{}'"));
    return c;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorEqualsTheTableForEveryTypeFromSnapshotAndLiveEvents(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "types_e2e", List.of(), "every_type")) {
      Map<String, Col> cols;
      List<String> ddl = new ArrayList<>();
      if (kind == Kind.POSTGRESQL) {
        cols =
            postgresColumns(
                p.db.schema(),
                PostgresExtensions.citext(p.db),
                PostgresExtensions.hstore(p.db),
                PostgresExtensions.ltree(p.db));
        String schema = p.db.schema();
        ddl.add("CREATE TYPE " + schema + ".mood AS ENUM ('sad', 'happy')");
        ddl.add(
            "CREATE TYPE "
                + schema
                + ".address AS (street text, zip int, at timestamptz, raw bytea, amount numeric)");
        ddl.add("CREATE DOMAIN " + schema + ".posint AS int CHECK (VALUE > 0)");
        ddl.add("CREATE DOMAIN " + schema + ".price AS numeric(8,2)");
      } else {
        cols = mysqlColumns(isMariadb(p));
      }
      ddl.add(createTable(cols));
      p.transaction(ddl.toArray(new String[0]));
      write(p, kind, insert(1, cols, 'a'), insert(2, cols, 'b'), insert(3, cols, 'n'));
      p.startServer();

      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("types"), "every_type");
      Map<String, ColumnType> kinds = new LinkedHashMap<>();
      for (Column c : m.columns()) {
        kinds.put(c.name(), c.type());
      }
      Map<String, ColumnType> expectedKinds = new LinkedHashMap<>();
      expectedKinds.put("id", ColumnType.INTEGER);
      cols.forEach((name, c) -> expectedKinds.put(name, ColumnType.valueOf(c.kind().name())));
      assertThat(kinds).as("kinds of docs/TYPES.md").containsExactlyEntriesOf(expectedKinds);
      assertThat(m.size()).isEqualTo(3);
      assertMirrorEqualsTable(p, m); // the snapshot

      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);

      // live inserts: values, the other values, NULL everywhere (MySQL: in a non-UTC session)
      write(p, kind, insert(4, cols, 'a'), insert(5, cols, 'b'), insert(6, cols, 'n'));
      awaitEvents(events, 3);
      Map<String, Map<String, String>> afterInserts = assertMirrorEqualsTable(p, m);
      assertImages(events, ChangeType.INSERT, null, afterInserts, m.columns(), "4|", "5|", "6|");

      // live updates: values → other values, values → NULL, NULL → values
      events.clear();
      write(p, kind, update(1, cols, 'b'), update(2, cols, 'n'), update(3, cols, 'a'));
      awaitEvents(events, 3);
      Map<String, Map<String, String>> afterUpdates = assertMirrorEqualsTable(p, m);
      assertImages(
          events, ChangeType.UPDATE, afterInserts, afterUpdates, m.columns(), "1|", "2|", "3|");

      // live deletes: the old images are whole rows
      events.clear();
      p.transaction(
          "DELETE FROM every_type WHERE id = 1",
          "DELETE FROM every_type WHERE id = 5",
          "DELETE FROM every_type WHERE id = 6");
      awaitEvents(events, 3);
      assertMirrorEqualsTable(p, m);
      assertImages(events, ChangeType.DELETE, afterUpdates, null, m.columns(), "1|", "5|", "6|");

      // a client joining now gets the server's image, built from the events above
      assertMirrorEqualsTable(p, p.readyMirror(p.client("late"), "every_type"));
    }
  }

  private static Map<String, Map<String, String>> assertMirrorEqualsTable(
      Pipeline p, TableMirror<Map<String, Object>> m) {
    p.awaitMirrorEqualsTable(m, "every_type");
    Map<String, Map<String, String>> table = p.tableContents("every_type", m);
    assertThat(Pipeline.mirrorContents(m)).isEqualTo(table);
    return table;
  }

  private static void awaitEvents(List<?> events, int n) {
    await().atMost(Duration.ofSeconds(20)).until(() -> events.size() >= n);
    assertThat(events).hasSize(n);
  }

  /** Each event's images equal the table rows before and after, in exact form. */
  private static void assertImages(
      List<ChangeEvent<Map<String, Object>>> events,
      ChangeType op,
      Map<String, Map<String, String>> before,
      Map<String, Map<String, String>> after,
      List<Column> columns,
      String... keys) {
    assertThat(events).extracting(ChangeEvent::op).containsOnly(op);
    for (int i = 0; i < keys.length; i++) {
      ChangeEvent<Map<String, Object>> e = events.get(i);
      assertThat(e.key()).as("event %d", i).isEqualTo(Long.parseLong(keys[i].replace("|", "")));
      assertThat(Pipeline.exactRow(e.oldRow(), columns))
          .as("old image of %s", keys[i])
          .isEqualTo(before == null ? null : before.get(keys[i]));
      assertThat(Pipeline.exactRow(e.newRow(), columns))
          .as("new image of %s", keys[i])
          .isEqualTo(after == null ? null : after.get(keys[i]));
    }
  }

  private static String createTable(Map<String, Col> cols) {
    StringJoiner j = new StringJoiner(", ", "CREATE TABLE every_type (id int PRIMARY KEY, ", ")");
    cols.forEach((name, c) -> j.add(name + " " + c.type()));
    return j.toString();
  }

  /** Row values: 'a' and 'b' are the two value sets, 'n' is NULL in every column. */
  private static String value(Col c, char set) {
    return set == 'a' ? c.a() : set == 'b' ? c.b() : "NULL";
  }

  private static String insert(int id, Map<String, Col> cols, char set) {
    StringJoiner names = new StringJoiner(", ", "INSERT INTO every_type (id, ", ")");
    StringJoiner values = new StringJoiner(", ", " VALUES (" + id + ", ", ")");
    cols.forEach(
        (name, c) -> {
          names.add(name);
          values.add(value(c, set));
        });
    return names + values.toString();
  }

  private static String update(int id, Map<String, Col> cols, char set) {
    StringJoiner j = new StringJoiner(", ", "UPDATE every_type SET ", " WHERE id = " + id);
    cols.forEach((name, c) -> j.add(name + " = " + value(c, set)));
    return j.toString();
  }

  /**
   * Runs write statements in one transaction, in a session that prints values differently from the
   * server: on MySQL/MariaDB a time zone neither UTC nor the server's (TIMESTAMP values must not
   * depend on it); on PostgreSQL another TimeZone, DateStyle, IntervalStyle, bytea_output and
   * lc_monetary (set in a DO block, since the JDBC driver refuses a DateStyle other than ISO).
   */
  private static void write(Pipeline p, Kind kind, String... statements) {
    if (kind == Kind.MYSQL) {
      List<String> out = new ArrayList<>(List.of("SET time_zone = '+05:30'"));
      out.addAll(List.of(statements));
      p.transaction(out.toArray(new String[0]));
    } else {
      p.sql(
          "SET TIME ZONE 'America/New_York'",
          "DO $w$ BEGIN SET LOCAL DateStyle = 'SQL, DMY'; "
              + "SET LOCAL IntervalStyle = 'iso_8601'; SET LOCAL bytea_output = 'escape'; SET LOCAL lc_monetary = 'POSIX'; "
              + String.join("; ", statements)
              + "; END $w$");
    }
  }

  private static boolean isMariadb(Pipeline p) throws Exception {
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT VERSION()")) {
      rs.next();
      return rs.getString(1).contains("MariaDB");
    }
  }
}
