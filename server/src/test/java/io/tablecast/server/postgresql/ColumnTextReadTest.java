package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.SourcePolls;
import io.tablecast.server.testing.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A table whose cached columns are all of kinds {@code row_to_json} prints as {@code to_jsonb} does
 * is read whole with {@code row_to_json} (about twice as fast to produce); its snapshot rows must
 * still equal, byte for byte, the images the capture function writes with {@code to_jsonb}, edge
 * values and writers' own output settings included. A table with a float or JSON column keeps
 * {@code to_jsonb}. The table has a column named {@code t}, the read's alias for the row: read as
 * {@code to_jsonb(t)} its rows were that column's value, and the snapshot failed ("primary-key
 * column id is NULL"); the reads name the row {@code t.*}.
 */
class ColumnTextReadTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final String COLUMNS =
      "id int PRIMARY KEY, i2 int2, i8 int8, n numeric(12,4), nb numeric, nan numeric, b bool, t text, "
          + "vc varchar(10), ch char(5), by bytea, d date, dinf date, tm time, ttz timetz, ts timestamp, "
          + "tsinf timestamp, tz timestamptz, tzinf timestamptz, u uuid, e mood, pi posint, pn price, "
          + "mo money, iv interval, ia inet, m macaddr, bt bit(4), x xml, nm name, lsn pg_lsn, oi oid, "
          + "i4r int4range, tsv tsvector, pt point, jp jsonpath, c1 \"char\", x8 xid8";

  /**
   * Three rows of {@link #COLUMNS}, each ending with its {@code last} (the values of columns added
   * after them): edge values; NULLs; dates and times BC and past 9999.
   */
  private static String values(String... last) {
    return "(1, -32768, -9223372036854775808, 12.3400, 123456789012345678901234567890.123456789, "
        + "'NaN', true, E'q\"\\\\ \\x01 é😀\\n', 'short', 'ab', '\\x00ff', '2024-02-29', 'infinity', "
        + "'13:45:30.123456', '13:45:30+02', '2024-02-29 13:45:30.5', '-infinity', "
        + "'2024-02-29 13:45:30+02', 'infinity', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ok', 42, "
        + "12.3, 1234567.891, '1 year 2 mons 3 days 04:05:06.5', '192.168.0.1/24', "
        + "'08:00:2b:01:02:03', B'1010', '<a k=\"v\">x &amp; y</a>', 'a name', '16/B374D848', "
        + "4294967295, '[1,5)', 'a fat cat', '(1.5,-2)', '$.a[*] ? (@ > 2)', 'x', '123'"
        + last[0]
        + "), (2"
        + ", NULL".repeat(37)
        + last[1]
        + "), (3"
        + ", NULL".repeat(10)
        + ", '0044-03-15 BC', '294276-12-31', '24:00:00', '24:00:00-15:59', "
        + "'0044-03-15 13:45:30.5 BC', '294276-12-31 23:59:59.999999', "
        + "'0044-03-15 13:45:30.5+00 BC', '294276-12-31 23:59:59.999999+00'"
        + ", NULL".repeat(19)
        + last[2]
        + ")";
  }

  /** As the writer's own session might print values: every setting the output depends on. */
  private static String inWriterSettings(String statement) {
    return "DO $w$ BEGIN SET LOCAL DateStyle = 'SQL, DMY'; SET LOCAL IntervalStyle = 'iso_8601'; "
        + "SET LOCAL bytea_output = 'escape'; SET LOCAL lc_monetary = 'POSIX'; "
        + "SET LOCAL TimeZone = 'Asia/Tokyo'; "
        + statement
        + "; END $w$";
  }

  /**
   * Date-time columns are read as their texts too ({@code DateStyle = ISO}): a space for the {@code
   * T}, offsets of hours only, years BC and past 9999 give the same row form as the JSON of the
   * capture function. A timestamptz BC failed the snapshot and stopped the tail ("cannot convert
   * ... 0044-03-15T13:45:30.5+00:00 BC"), whichever way it was read.
   */
  @Test
  void aTableWithDateTimeColumnsIsReadAsColumnTextsAndItsRowsEqualTheCapturedImages()
      throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("date_times");
    Map<Integer, String> snapshot =
        snapshotEqualsCapturedImages(
            db, COLUMNS + FLOATS, values(FLOAT_VALUES), SnapshotRead.Shape.COLUMN_TEXTS);
    assertThat(snapshot.get(1))
        .contains(
            "\"nan\":\"NaN\"",
            "\"dinf\":\"infinity\"",
            "\"ts\":\"2024-02-29T13:45:30.5\"",
            "\"tz\":\"2024-02-29T11:45:30Z\"",
            "\"f4\":1.0000001",
            "\"f3\":0.30000000000000004");
    assertThat(snapshot.get(3)).contains("\"f4\":\"NaN\"", "\"f3\":\"-Infinity\"");
    assertThat(snapshot.get(3))
        .contains(
            "\"d\":\"0044-03-15 BC\"",
            "\"ts\":\"0044-03-15T13:45:30.5 BC\"",
            "\"tsinf\":\"294276-12-31T23:59:59.999999\"",
            "\"tz\":\"-0043-03-15T13:45:30.500Z\"",
            "\"tzinf\":\"+294276-12-31T23:59:59.999999Z\"");
  }

  /** Floats: shortest digits, exponents, the smallest subnormal, -0, NaN and the infinities. */
  private static final String FLOATS = ", f8 float8, f4 real, f3 float8";

  private static final String[] FLOAT_VALUES = {
    ", 1e300, 1.0000001, 0.30000000000000004",
    ", 5e-324, 'Infinity', NULL",
    ", '-0', 'NaN', '-Infinity'"
  };

  /** The same columns beside a JSON column: read as JSON, the same row forms. */
  @Test
  void theSameColumnsBesideAJsonColumnAreReadAsJsonAndTheirRowsEqualTheCapturedImages()
      throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("date_times_json");
    String[] json = new String[3];
    for (int i = 0; i < 3; i++) {
      json[i] = FLOAT_VALUES[i] + ", '{\"a\": [1, 2.50]}'";
    }
    Map<Integer, String> snapshot =
        snapshotEqualsCapturedImages(
            db, COLUMNS + FLOATS + ", j jsonb", values(json), SnapshotRead.Shape.JSON_TEXT);
    assertThat(snapshot.get(3))
        .contains(
            "\"tz\":\"-0043-03-15T13:45:30.500Z\"", "\"tzinf\":\"+294276-12-31T23:59:59.999999Z\"");
  }

  /**
   * Without temporal columns, every column's JSON form is its type's text output: the table is read
   * as one text column per column, no JSON built, and its rows still equal the captured images, the
   * padding of {@code char(n)}, NaN and infinite numerics, money, bytea and integers beyond a long
   * included.
   */
  @Test
  void aTableOfTextOutputKindsIsReadAsColumnTextsAndItsRowsEqualTheCapturedImages()
      throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("column_texts");
    Map<Integer, String> snapshot =
        snapshotEqualsCapturedImages(
            db, TEXT_OUTPUT_COLUMNS, TEXT_OUTPUT_VALUES, SnapshotRead.Shape.COLUMN_TEXTS);
    assertThat(snapshot.get(1))
        .contains(
            "\"nan\":\"NaN\"",
            "\"ninf\":\"-Infinity\"",
            "\"ch\":\"ab   \"",
            "\"n\":\"12.3400\"",
            "\"nz\":\"-0.0010\"",
            "\"b\":true",
            "\"x8\":\"18446744073709551615\"");
  }

  private static final String TEXT_OUTPUT_COLUMNS =
      "id int PRIMARY KEY, i2 int2, i8 int8, n numeric(12,4), nz numeric(12,4), nb numeric, "
          + "nan numeric, ninf numeric, b bool, bf bool, t text, vc varchar(10), ch char(5), "
          + "by bytea, u uuid, e mood, pi posint, pn price, mo money, iv interval, ia inet, "
          + "m macaddr, bt bit(4), x xml, nm name, lsn pg_lsn, oi oid, i4r int4range, tsv tsvector, "
          + "pt point, jp jsonpath, c1 \"char\", x8 xid8";

  private static final String TEXT_OUTPUT_VALUES =
      "(1, -32768, -9223372036854775808, 12.3400, -0.0010, "
          + "123456789012345678901234567890.123456789, 'NaN', '-Infinity', true, false, "
          + "E'q\"\\\\ \\x01 é😀\\n', 'short', 'ab', '\\x00ff', "
          + "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ok', 42, 12.3, 1234567.891, "
          + "'1 year 2 mons 3 days 04:05:06.5', '192.168.0.1/24', '08:00:2b:01:02:03', B'1010', "
          + "'<a k=\"v\">x &amp; y</a>', 'a name', '16/B374D848', 4294967295, '[1,5)', 'a fat cat', "
          + "'(1.5,-2)', '$.a[*] ? (@ > 2)', 'x', '18446744073709551615'), (2"
          + ", NULL".repeat(32)
          + ")";

  /**
   * Creates the table {@code types (columns)} with {@code values}, snapshots it (read in {@code
   * shape}), then deletes and inserts the rows again in a writer's own output settings: the
   * captured images equal the snapshot's rows. Returns the snapshot's rows as JSON by id.
   */
  private static Map<Integer, String> snapshotEqualsCapturedImages(
      TestDatabases.Isolated db, String columns, String values, SnapshotRead.Shape shape)
      throws Exception {
    db.execute(
        "CREATE TYPE mood AS ENUM ('sad', 'ok')",
        "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
        "CREATE DOMAIN price AS numeric(8,2)",
        "CREATE TABLE types (" + columns + ")",
        "INSERT INTO types VALUES " + values);
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("types"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      SnapshotRead read = PgTableReads.snapshotRead(source.tables().get(0));
      assertThat(read.shape()).isEqualTo(shape);
      if (shape == SnapshotRead.Shape.JSON_TEXT) {
        assertThat(read.sql()).contains("to_jsonb");
      }
      Map<Integer, String> snapshot = SourcePolls.snapshotTexts(source, "id");
      int rows = snapshot.size();
      assertThat(rows).isGreaterThanOrEqualTo(2);

      List<RowEvent> events = new ArrayList<>();
      db.execute(inWriterSettings("DELETE FROM types"));
      SourcePolls.awaitEvents(source, events, rows);
      db.execute(inWriterSettings("INSERT INTO types VALUES " + values));
      SourcePolls.awaitEvents(source, events, 2 * rows);
      assertThat(events).extracting(RowEvent::op).hasSize(2 * rows);
      Map<Integer, String> deleted = new TreeMap<>();
      Map<Integer, String> inserted = new TreeMap<>();
      for (RowEvent e : events) {
        boolean delete = e.op() == Op.DELETE;
        ObjectNode image = delete ? Rows.before(e) : Rows.after(e);
        (delete ? deleted : inserted).put(image.get("id").asInt(), Rows.text(image));
      }
      assertThat(deleted).isEqualTo(snapshot);
      assertThat(inserted).isEqualTo(snapshot);
      return snapshot;
    }
  }

  @Test
  void aTableWithAJsonColumnIsReadWithToJsonb() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("row_to_json_not");
    db.execute(
        "CREATE TABLE floats (id int PRIMARY KEY, r real)",
        "CREATE TABLE docs (id int PRIMARY KEY, j json)",
        "CREATE TABLE arrays (id int PRIMARY KEY, a int[])");
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(), null, null, List.of("floats", "docs", "arrays"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      source.snapshot((t, row) -> {});
      assertThat(PgTableReads.snapshotRead(source.tables().get(0)).shape())
          .isEqualTo(SnapshotRead.Shape.COLUMN_TEXTS);
      assertThat(source.tables().subList(1, 3))
          .allSatisfy(
              t -> assertThat(PgTableReads.snapshotRead(t).sql()).contains(PgTableReads.ROW_JSON));
    }
  }
}
