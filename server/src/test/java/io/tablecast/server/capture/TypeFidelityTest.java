package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.Op;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.PostgresExtensions;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.SourcePolls;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every supported type reaches the snapshot and the events in the same JSON form, the form
 * documented in docs/TYPES.md.
 */
class TypeFidelityTest {

  private static final String LONG_BLOB_BASE64 =
      Base64.getEncoder().encodeToString(repeat((byte) 0xab, 100));

  @Test
  void mysqlSnapshotAndEventsCarryIdenticalExactValues() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("types");
    db.execute(
        "CREATE TABLE types (id INT PRIMARY KEY, ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, "
            + "ubi BIGINT UNSIGNED, b TINYINT(1), d DECIMAL(12,4), d0 DECIMAL(10,0), f FLOAT, db DOUBLE, c CHAR(5), "
            + "vc VARCHAR(50), tx TEXT, bin BINARY(3), vb VARBINARY(10), bl BLOB, dt DATE, tm TIME(6), dtm DATETIME(6), "
            + "ts TIMESTAMP(6) NULL, j JSON, e ENUM('red','green'), y YEAR)");
    String insert =
        "INSERT INTO types VALUES (1, -128, -32768, -8388608, -2147483648, -9223372036854775808, "
            + "18446744073709551615, 1, 12.3400, 42, 0.25, 1.5, 'ab', 'héllo 😀', 'naïve ✓ text', x'000102', x'ff00', "
            + "REPEAT(x'ab', 100), '2024-02-29', '13:45:30.123456', '2024-02-29 13:45:30.123456', "
            + "'2024-02-29 13:45:30.123456', '{\"a\": [1, 2.50], \"s\": \"x\"}', 'green', 2024), "
            + "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            + "NULL, NULL, NULL, NULL, NULL, NULL, NULL)";
    String utc = "SET time_zone = '+00:00'";
    db.execute(utc, insert);
    String expected =
        "{\"id\":1,\"ti\":-128,\"si\":-32768,\"mi\":-8388608,\"i\":-2147483648,"
            + "\"bi\":-9223372036854775808,\"ubi\":18446744073709551615,\"b\":true,\"d\":\"12.3400\",\"d0\":\"42\","
            + "\"f\":0.25,\"db\":1.5,\"c\":\"ab\",\"vc\":\"héllo 😀\",\"tx\":\"naïve ✓ text\",\"bin\":\"AAEC\","
            + "\"vb\":\"/wA=\",\"bl\":\""
            + LONG_BLOB_BASE64
            + "\",\"dt\":\"2024-02-29\",\"tm\":\"13:45:30.123456\","
            + "\"dtm\":\"2024-02-29T13:45:30.123456\",\"ts\":\"2024-02-29T13:45:30.123456Z\","
            + "\"j\":{\"a\":[1,2.50],\"s\":\"x\"},\"e\":\"green\",\"y\":2024}";
    Map<String, ColumnKind> kinds = checkRoundTrip(db, expected, "DELETE FROM types", insert, utc);
    assertThat(kinds)
        .containsEntry("b", ColumnKind.BOOLEAN)
        .containsEntry("ti", ColumnKind.INTEGER)
        .containsEntry("ts", ColumnKind.TIMESTAMP_TZ)
        .containsEntry("dtm", ColumnKind.TIMESTAMP)
        .containsEntry("j", ColumnKind.JSON)
        .containsEntry("bl", ColumnKind.BINARY)
        .containsEntry("e", ColumnKind.STRING);
  }

  @Test
  void postgresqlSnapshotAndEventsCarryIdenticalExactValues() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("types");
    db.execute(
        "CREATE TYPE " + db.schema() + ".mood AS ENUM ('sad', 'happy')",
        "CREATE TABLE types (id int PRIMARY KEY, si smallint, i integer, bi bigint, n numeric(12,4), nn numeric, "
            + "r real, dp double precision, dn double precision, b boolean, c char(5), vc varchar(50), tx text, by bytea, "
            + "dt date, tm time(6), ts timestamp(6), tz timestamptz(6), j json, jb jsonb, u uuid, e mood, arr int[])");
    String insert =
        "INSERT INTO types VALUES (1, -32768, -2147483648, -9223372036854775808, 12.3400, 'NaN', 0.25, "
            + "1.5, 'Infinity', true, 'ab', 'héllo 😀', 'naïve ✓ text', '\\x000102', '2024-02-29', '13:45:30.123456', "
            + "'2024-02-29 13:45:30.123456', '2024-02-29 13:45:30.123456+02', '{\"a\": [1, 2.50]}', "
            + "'{\"a\": [1, 2.50]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'happy', '{1,2,3}'), "
            + "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            + "NULL, NULL, NULL, NULL, NULL)";
    String tz =
        "SET TIME ZONE 'America/New_York'"; // the instant must not depend on the session zone
    db.execute(insert);
    String expected =
        "{\"id\":1,\"si\":-32768,\"i\":-2147483648,\"bi\":-9223372036854775808,\"n\":\"12.3400\","
            + "\"nn\":\"NaN\",\"r\":0.25,\"dp\":1.5,\"dn\":\"Infinity\",\"b\":true,\"c\":\"ab   \",\"vc\":\"héllo 😀\","
            + "\"tx\":\"naïve ✓ text\",\"by\":\"AAEC\",\"dt\":\"2024-02-29\",\"tm\":\"13:45:30.123456\","
            + "\"ts\":\"2024-02-29T13:45:30.123456\",\"tz\":\"2024-02-29T11:45:30.123456Z\",\"j\":{\"a\":[1,2.50]},"
            + "\"jb\":{\"a\":[1,2.50]},\"u\":\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\",\"e\":\"happy\",\"arr\":[1,2,3]}";
    Map<String, ColumnKind> kinds = checkRoundTrip(db, expected, "DELETE FROM types", insert, tz);
    assertThat(kinds)
        .containsEntry("n", ColumnKind.DECIMAL)
        .containsEntry("tz", ColumnKind.TIMESTAMP_TZ)
        .containsEntry("arr", ColumnKind.JSON)
        .containsEntry("e", ColumnKind.STRING)
        .containsEntry("by", ColumnKind.BINARY);
  }

  @Test
  void mysqlTypeVariantsAndEdgeValuesCarryIdenticalExactValues() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("types_more");
    boolean mariadb = isMariadb(db);
    // MariaDB only: its own uuid/inet types
    String mariadbColumns = mariadb ? ", u UUID, i4 INET4, i6 INET6" : "";
    String mariadbValues =
        mariadb ? ", 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '192.168.0.1', '::ffff:1.2.3.4'" : "";
    String mariadbNulls = mariadb ? ", NULL, NULL, NULL" : "";
    db.execute(
        "CREATE TABLE types (id INT PRIMARY KEY, b2 TINYINT(1), uti TINYINT UNSIGNED, st SET('a','b','c'), "
            + "tt TINYTEXT, mt MEDIUMTEXT, lt LONGTEXT, tb TINYBLOB, mb MEDIUMBLOB, lb LONGBLOB, tneg TIME(6), tbig TIME, "
            + "dtm0 DATETIME, ts0 TIMESTAMP NULL, f FLOAT, f2 FLOAT"
            + mariadbColumns
            + ")");
    String insert =
        "INSERT INTO types VALUES (1, 2, 255, 'a,c', 'tiny ✓', 'medium 🚀', 'long \"q\" \\\\ 😀', x'01', "
            + "x'0203', x'', '-838:59:59.000000', '100:00:01', '2024-02-29 13:45:30', '2024-02-29 13:45:30', "
            + "3.14159265, 16777217"
            + mariadbValues
            + "), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
            + mariadbNulls
            + ")";
    String utc = "SET time_zone = '+00:00'";
    db.execute(utc, insert);
    String expected =
        "{\"id\":1,\"b2\":true,\"uti\":255,\"st\":\"a,c\",\"tt\":\"tiny ✓\",\"mt\":\"medium 🚀\","
            + "\"lt\":\"long \\\"q\\\" \\\\ 😀\",\"tb\":\"AQ==\",\"mb\":\"AgM=\",\"lb\":\"\",\"tneg\":\"-838:59:59.000000\","
            + "\"tbig\":\"100:00:01\",\"dtm0\":\"2024-02-29T13:45:30\",\"ts0\":\"2024-02-29T13:45:30Z\","
            // FLOAT: the float's shortest exact form, not 6 digits
            + "\"f\":3.1415927,\"f2\":1.6777216E7"
            + (mariadb
                ? ",\"u\":\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\",\"i4\":\"192.168.0.1\","
                    + "\"i6\":\"::ffff:1.2.3.4\""
                : "")
            + "}";
    Map<String, ColumnKind> kinds = checkRoundTrip(db, expected, "DELETE FROM types", insert, utc);
    assertThat(kinds)
        .containsEntry("b2", ColumnKind.BOOLEAN)
        .containsEntry("st", ColumnKind.STRING)
        .containsEntry("lt", ColumnKind.STRING)
        .containsEntry("lb", ColumnKind.BINARY)
        .containsEntry("tneg", ColumnKind.TIME);
    if (mariadb) {
      assertThat(kinds)
          .containsEntry("u", ColumnKind.STRING)
          .containsEntry("i6", ColumnKind.STRING);
    }
  }

  @Test
  void mysqlSpatialAndBitTypesCarryIdenticalExactValues() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("types_spatial");
    db.execute(
        "CREATE TABLE types (id INT PRIMARY KEY, g GEOMETRY, pt POINT, ls LINESTRING, pg POLYGON, "
            + "mpt MULTIPOINT, mls MULTILINESTRING, mpg MULTIPOLYGON, gc GEOMETRYCOLLECTION, "
            + "b1 BIT(1), b5 BIT(5), b64 BIT(64))");
    String insert =
        "INSERT INTO types VALUES (1, ST_GeomFromText('POINT(1 2)', 4326), "
            + "ST_GeomFromText('POINT(0.30000000000000004 -1e300)'), "
            + "ST_GeomFromText('LINESTRING(0.1 0.2, 1.2345678901234567 -98765.43210987654321)'), "
            + "ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))'), "
            + "ST_GeomFromText('MULTIPOINT(1 1, 2.5 2)'), ST_GeomFromText('MULTILINESTRING((0 0, 1 1), (2 2, 3 3))'), "
            + "ST_GeomFromText('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((2 2, 3 2, 3 3, 2 2)))'), "
            + "ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))'), b'1', b'00101', "
            + "b'1000000000000000000000000000000000000000000000000000000000000001'), "
            + "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";
    db.execute(insert);
    String expected =
        "{\"id\":1,"
            + "\"g\":{\"type\":\"Point\",\"coordinates\":[1,2],\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"EPSG:4326\"}}},"
            + "\"pt\":{\"type\":\"Point\",\"coordinates\":[0.30000000000000004,-1E+300]},"
            + "\"ls\":{\"type\":\"LineString\",\"coordinates\":[[0.1,0.2],[1.2345678901234567,-98765.43210987655]]},"
            + "\"pg\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,0]],[[1,1],[2,1],[2,2],[1,1]]]},"
            + "\"mpt\":{\"type\":\"MultiPoint\",\"coordinates\":[[1,1],[2.5,2]]},"
            + "\"mls\":{\"type\":\"MultiLineString\",\"coordinates\":[[[0,0],[1,1]],[[2,2],[3,3]]]},"
            + "\"mpg\":{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2],[3,2],[3,3],[2,2]]]]},"
            + "\"gc\":{\"type\":\"GeometryCollection\",\"geometries\":[{\"type\":\"Point\",\"coordinates\":[1,2]},"
            + "{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}]},"
            + "\"b1\":\"1\",\"b5\":\"00101\",\"b64\":\"1000000000000000000000000000000000000000000000000000000000000001\"}";
    Map<String, ColumnKind> kinds =
        checkRoundTrip(db, expected, "DELETE FROM types", insert, "SET time_zone = '+00:00'");
    assertThat(kinds)
        .containsEntry("g", ColumnKind.JSON)
        .containsEntry("mpg", ColumnKind.JSON)
        .containsEntry("gc", ColumnKind.JSON)
        .containsEntry("b1", ColumnKind.STRING)
        .containsEntry("b64", ColumnKind.STRING);
  }

  @Test
  void mysqlBitPrimaryKeyRowsAreReadBackByKey() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("types_bitkey");
    db.execute(
        "CREATE TABLE types (k BIT(10) PRIMARY KEY, v INT)",
        "INSERT INTO types VALUES (b'0000000101', 1)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("types"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      List<String> snapshot = new ArrayList<>();
      source.snapshot((t, row) -> snapshot.add(Rows.text(Rows.json(t, row))));
      assertThat(snapshot).containsExactly("{\"k\":\"0000000101\",\"v\":1}");
      List<RowEvent> events = new ArrayList<>();
      db.execute(
          "INSERT INTO types VALUES (b'1111111111', 2)", "UPDATE types SET v = 3 WHERE k = 5");
      SourcePolls.awaitEvents(source, events, 2);
      db.execute("DELETE FROM types WHERE k = 1023");
      SourcePolls.awaitEvents(source, events, 3);
      assertThat(events)
          .extracting(
              e -> e.op() + " " + Rows.text(Rows.after(e) != null ? Rows.after(e) : Rows.before(e)))
          .containsExactlyInAnyOrder(
              "INSERT {\"k\":\"1111111111\",\"v\":2}",
              "INSERT {\"k\":\"0000000101\",\"v\":3}",
              "DELETE {\"k\":\"1111111111\"}");
    }
  }

  @Test
  void postgresqlTextualTypesArraysAndInfinitiesCarryIdenticalExactValues() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("types_more");
    db.execute(
        "CREATE TABLE types (id int PRIMARY KEY, iv interval, ttz timetz, ia inet, cd cidr, m macaddr, "
            + "m8 macaddr8, bt bit(4), vbt varbit(8), x xml, ci "
            + PostgresExtensions.citext(db)
            + ", nm name, ta text[], "
            + "di date, dni date, tsi timestamp, tsni timestamp, tzi timestamptz, tzni timestamptz, r real)");
    String insert =
        "INSERT INTO types VALUES (1, '1 day 02:00:00', '13:45:30+02', '192.168.0.1/24', '10.1.0.0/16', "
            + "'08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', B'1010', B'101', '<a k=\"v\">x &amp; y</a>', 'MiXeD', "
            + "'a name', '{\"a\",NULL,\"q\\\"x\"}', 'infinity', '-infinity', 'infinity', '-infinity', 'infinity', "
            + "'-infinity', '-Infinity'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            + "NULL, NULL, NULL, NULL, NULL, NULL)";
    db.execute(insert);
    String expected =
        "{\"id\":1,\"iv\":\"1 day 02:00:00\",\"ttz\":\"13:45:30+02\",\"ia\":\"192.168.0.1/24\","
            + "\"cd\":\"10.1.0.0/16\",\"m\":\"08:00:2b:01:02:03\",\"m8\":\"08:00:2b:01:02:03:04:05\",\"bt\":\"1010\","
            + "\"vbt\":\"101\",\"x\":\"<a k=\\\"v\\\">x &amp; y</a>\",\"ci\":\"MiXeD\",\"nm\":\"a name\","
            + "\"ta\":[\"a\",null,\"q\\\"x\"],\"di\":\"infinity\",\"dni\":\"-infinity\",\"tsi\":\"infinity\","
            + "\"tsni\":\"-infinity\",\"tzi\":\"infinity\",\"tzni\":\"-infinity\",\"r\":\"-Infinity\"}";
    Map<String, ColumnKind> kinds =
        checkRoundTrip(db, expected, "DELETE FROM types", insert, "SET TIME ZONE 'Asia/Tokyo'");
    assertThat(kinds)
        .containsEntry("iv", ColumnKind.STRING)
        .containsEntry("ci", ColumnKind.STRING)
        .containsEntry("bt", ColumnKind.STRING)
        .containsEntry("ta", ColumnKind.JSON)
        .containsEntry("di", ColumnKind.DATE)
        .containsEntry("tsi", ColumnKind.TIMESTAMP)
        .containsEntry("tzi", ColumnKind.TIMESTAMP_TZ);
  }

  /**
   * Every other category of PostgreSQL type: text search, ranges and multiranges, hstore, money,
   * geometric, ltree, composite, domains, oid, pg_lsn, jsonpath, "char", interval, xid8, and arrays
   * of them. The writer's session changes every output setting these depend on; the table is
   * captured by the pinned function, so the images still equal the snapshot byte for byte.
   */
  @Test
  void postgresqlTypesOfEveryCategoryCarryIdenticalExactValuesWhateverTheWritersSettings()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("types_pg_all");
    String hstore = PostgresExtensions.hstore(db);
    db.execute(
        "CREATE TYPE address AS (street text, zip int, at timestamptz, raw bytea, amount numeric)",
        "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
        "CREATE DOMAIN price AS numeric(8,2)",
        "CREATE TABLE types (id int PRIMARY KEY, tsv tsvector, tsq tsquery, i4r int4range, nr numrange, tsr tsrange, "
            + "tzr tstzrange, dr daterange, i4mr int4multirange, tzmr tstzmultirange, hs "
            + hstore
            + ", mo money, "
            + "pt point, ln line, ls lseg, bx box, pa path, pg polygon, ci circle, lt "
            + PostgresExtensions.ltree(db)
            + ", addr address, pi posint, pn price, oi oid, lsn pg_lsn, jp jsonpath, ch \"char\", iv interval, "
            + "aiv interval[], atz timestamptz[], aby bytea[], an numeric[], amo money[], ahs "
            + hstore
            + "[], "
            + "aad address[], api posint[], x8 xid8)");
    String insert =
        "INSERT INTO types VALUES (1, 'a fat cat sat on a mat', 'fat & (rat | !cat)', '[1,5)', "
            + "'(1.50,2.5]', '[2024-02-29 13:45:30.5,2024-03-01)', '[2024-02-29 13:45:30+02,2024-03-01 00:00+00)', "
            + "'[2024-01-01,2024-02-01)', '{[1,3), [5,7)}', '{[2024-01-01 00:00+05,2024-01-02 00:00+05)}', "
            + "'a=>1, \"b c\"=>NULL, é=>😀', 1234567.891, '(1.5,-2)', '{1,2,3}', '[(0,0),(1.5,1)]', '(1,1),(0,0)', "
            + "'[(0,0),(1,1),(2,0)]', '((0,0),(1,1),(1,0))', '<(1,2),3.5>', 'Top.Science.Astronomy', "
            + "ROW('Main St', 12345, '2024-02-29 13:45:30+02', '\\x0102', 1.50), 42, 12.3, 4294967295, '16/B374D848', "
            + "'$.a[*] ? (@ > 2)', 'x', '1 year 2 mons 3 days 04:05:06.5', ARRAY['1 day'::interval, '-02:00:00'], "
            + "ARRAY['2024-02-29 13:45:30.5+02'::timestamptz, 'infinity'], ARRAY['\\x0001'::bytea, NULL], "
            + "ARRAY[1.50, -2]::numeric[], ARRAY[1.5::money, (-1234.5)::money], ARRAY['a=>1'::"
            + hstore
            + "], "
            + "ARRAY[ROW('x', 1, NULL, NULL, NULL)::address], ARRAY[1, 2]::posint[], '123'), (2"
            + ", NULL".repeat(36)
            + ")";
    db.execute(insert);
    String expected =
        "{\"id\":1,\"tsv\":\"'a' 'cat' 'fat' 'mat' 'on' 'sat'\",\"tsq\":\"'fat' & ( 'rat' | !'cat' )\","
            + "\"i4r\":\"[1,5)\",\"nr\":\"(1.50,2.5]\",\"tsr\":\"[\\\"2024-02-29 13:45:30.5\\\",\\\"2024-03-01 00:00:00\\\")\","
            + "\"tzr\":\"[\\\"2024-02-29 11:45:30+00\\\",\\\"2024-03-01 00:00:00+00\\\")\",\"dr\":\"[2024-01-01,2024-02-01)\","
            + "\"i4mr\":\"{[1,3),[5,7)}\",\"tzmr\":\"{[\\\"2023-12-31 19:00:00+00\\\",\\\"2024-01-01 19:00:00+00\\\")}\","
            + "\"hs\":{\"a\":\"1\",\"é\":\"😀\",\"b c\":null},\"mo\":\"1234567.89\",\"pt\":\"(1.5,-2)\",\"ln\":\"{1,2,3}\","
            + "\"ls\":\"[(0,0),(1.5,1)]\",\"bx\":\"(1,1),(0,0)\",\"pa\":\"[(0,0),(1,1),(2,0)]\",\"pg\":\"((0,0),(1,1),(1,0))\","
            + "\"ci\":\"<(1,2),3.5>\",\"lt\":\"Top.Science.Astronomy\",\"addr\":{\"at\":\"2024-02-29T11:45:30+00:00\","
            + "\"raw\":\"\\\\x0102\",\"zip\":12345,\"amount\":1.50,\"street\":\"Main St\"},\"pi\":42,\"pn\":\"12.30\","
            + "\"oi\":4294967295,\"lsn\":\"16/B374D848\",\"jp\":\"$.\\\"a\\\"[*]?(@ > 2)\",\"ch\":\"x\","
            + "\"iv\":\"1 year 2 mons 3 days 04:05:06.5\",\"aiv\":[\"1 day\",\"-02:00:00\"],"
            + "\"atz\":[\"2024-02-29T11:45:30.5+00:00\",\"infinity\"],\"aby\":[\"\\\\x0001\",null],\"an\":[1.50,-2],"
            + "\"amo\":[\"$1.50\",\"-$1,234.50\"],\"ahs\":[{\"a\":\"1\"}],\"aad\":[{\"at\":null,\"raw\":null,\"zip\":1,"
            + "\"amount\":null,\"street\":\"x\"}],\"api\":[1,2],\"x8\":\"123\"}";
    Map<String, ColumnKind> kinds =
        checkRoundTrip(
            db,
            expected,
            inWriterSettings("DELETE FROM types"),
            inWriterSettings(insert),
            "SET TIME ZONE 'Asia/Tokyo'");
    assertThat(kinds)
        .containsEntry("tsv", ColumnKind.STRING)
        .containsEntry("tzr", ColumnKind.STRING)
        .containsEntry("hs", ColumnKind.JSON)
        .containsEntry("mo", ColumnKind.DECIMAL)
        .containsEntry("addr", ColumnKind.JSON)
        .containsEntry("pi", ColumnKind.INTEGER)
        .containsEntry("pn", ColumnKind.DECIMAL)
        .containsEntry("oi", ColumnKind.INTEGER)
        .containsEntry("iv", ColumnKind.STRING)
        .containsEntry("api", ColumnKind.JSON)
        .containsEntry("pt", ColumnKind.STRING);
    assertThat(captureFunction(db, "types")).isEqualTo("tablecast_capture_pinned");
  }

  /**
   * Top-level bytea and timestamptz need no pinned settings: the server reads either bytea output
   * format and turns offsets into instants, so such tables keep the cheaper plain function.
   */
  @Test
  void postgresqlByteaAndTimestamptzWrittenUnderAnySettingsNeedNoPinnedFunction() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("types_pg_plain");
    db.execute(
        "CREATE TABLE types (id int PRIMARY KEY, by bytea, tz timestamptz, d date, a int[])");
    String insert =
        "INSERT INTO types VALUES (1, '\\x00414243ff5c0a', '2024-02-29 13:45:30.5+02', '2024-02-29', "
            + "'{1,2}'), (2, NULL, NULL, NULL, NULL)";
    db.execute(insert);
    String expected =
        "{\"id\":1,\"by\":\"AEFCQ/9cCg==\",\"tz\":\"2024-02-29T11:45:30.500Z\",\"d\":\"2024-02-29\","
            + "\"a\":[1,2]}";
    checkRoundTrip(
        db,
        expected,
        inWriterSettings("DELETE FROM types"),
        inWriterSettings(insert),
        "SET TIME ZONE 'America/St_Johns'");
    assertThat(captureFunction(db, "types")).isEqualTo("tablecast_capture");
  }

  @Test
  void postgresqlColumnsThatCannotBeCapturedAreRefusedTogetherNamingEachTypeAndTheWayOut()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("types_pg_refused");
    db.execute(
        "CREATE TYPE tagged AS (label text, kind regtype)",
        "CREATE TABLE refused (id int PRIMARY KEY, ok text, rel regclass, t tagged)");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            new SourceConfig(db.jdbcUrl(), null, null, List.of("refused"), true, null, null))) {
      assertThatThrownBy(installer::describe)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(db.table("refused") + ".rel has type regclass")
          .hasMessageContaining(db.table("refused") + ".t has type tagged")
          .hasMessageContaining("regtype")
          .hasMessageContaining("leave the column out with exclude_columns")
          .hasMessageNotContaining(".ok ");
    }
  }

  /**
   * {@code statement} run by a writer whose session prints values differently from the server: in a
   * DO block, because the JDBC driver refuses a session whose DateStyle is not ISO.
   */
  private static String inWriterSettings(String statement) {
    return "DO $w$ BEGIN SET LOCAL DateStyle = 'SQL, DMY'; SET LOCAL IntervalStyle = 'iso_8601'; "
        + "SET LOCAL bytea_output = 'escape'; SET LOCAL lc_monetary = 'POSIX'; SET LOCAL extra_float_digits = 3; "
        + statement
        + "; END $w$";
  }

  private static String captureFunction(TestDatabases.Isolated db, String table) throws Exception {
    try (java.sql.Connection c = db.connect();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT DISTINCT p.proname FROM pg_trigger t JOIN pg_proc p "
                    + "ON p.oid = t.tgfoid WHERE t.tgrelid = '"
                    + db.table(table)
                    + "'::regclass AND t.tgtype & 32 = 0")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private static boolean isMariadb(TestDatabases.Isolated db) throws Exception {
    try (java.sql.Connection c = db.connect();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT VERSION()")) {
      rs.next();
      return rs.getString(1).contains("MariaDB");
    }
  }

  /**
   * Snapshot of rows 1 (values) and 2 (all NULL); then delete them (old images) and insert them
   * again (new images) in another session time zone: all three must be byte-identical.
   */
  private static Map<String, ColumnKind> checkRoundTrip(
      TestDatabases.Isolated db,
      String expectedRow1,
      String delete,
      String insert,
      String sessionSetting)
      throws Exception {
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("types"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      Map<Integer, String> snapshot = SourcePolls.snapshotTexts(source, "id");
      assertThat(snapshot.get(1)).isEqualTo(expectedRow1);
      assertThat(snapshot.get(2)).isEqualTo(allNull(source.tables().get(0), 2));

      List<RowEvent> events = new ArrayList<>();
      db.execute(sessionSetting, delete);
      SourcePolls.awaitEvents(
          source, events, 2); // deleted and inserted in separate reads: MySQL reports row states
      db.execute(sessionSetting, insert);
      SourcePolls.awaitEvents(source, events, 4);
      assertThat(events)
          .extracting(RowEvent::op)
          .containsExactly(Op.DELETE, Op.DELETE, Op.INSERT, Op.INSERT);
      if (db.kind()
          == Kind.MYSQL) { // a MySQL delete names the row by its key, the hub knows the rest
        assertThat(Rows.text(Rows.before(events.get(0)))).isEqualTo("{\"id\":1}");
        assertThat(Rows.text(Rows.before(events.get(1)))).isEqualTo("{\"id\":2}");
      } else {
        assertThat(Rows.text(Rows.before(events.get(0)))).isEqualTo(snapshot.get(1));
        assertThat(Rows.text(Rows.before(events.get(1)))).isEqualTo(snapshot.get(2));
      }
      assertThat(Rows.text(Rows.after(events.get(2)))).isEqualTo(snapshot.get(1));
      assertThat(Rows.text(Rows.after(events.get(3)))).isEqualTo(snapshot.get(2));
      Map<String, ColumnKind> kinds = new TreeMap<>();
      source.tables().get(0).columns().forEach(c -> kinds.put(c.name(), c.kind()));
      return kinds;
    }
  }

  private static String allNull(TableSchema table, int id) throws Exception {
    ObjectNode row = MessageCodec.jsonMapper().createObjectNode();
    table.columns().forEach(c -> row.putNull(c.name()));
    row.put("id", (long) id);
    return Rows.text(row);
  }

  private static byte[] repeat(byte b, int n) {
    byte[] out = new byte[n];
    java.util.Arrays.fill(out, b);
    return out;
  }
}
