package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.SourcePolls;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: a table whose every column's {@code JSON_OBJECT} form is its value as the server
 * sends it in text (integers signed and unsigned, TINYINT(1), YEAR, decimals, character types in
 * other character sets, ENUM, SET, MariaDB's UUID and INET types and date-times, TIMESTAMP as
 * {@code UNIX_TIMESTAMP}) is read whole as one text per column; its snapshot rows equal, byte for
 * byte, its rows read as {@code JSON_OBJECT}, and the rows the tail reads by key after the triggers
 * record them. A table with a BIT, FLOAT, binary or JSON column keeps {@code JSON_OBJECT}; so does
 * one with a date-time on MySQL 8, whose {@code JSON_OBJECT} prints six fraction digits.
 */
class MysqlColumnTextsTest {

  @Test
  void aTableOfTextKindsIsReadAsColumnTextsAndItsRowsEqualTheRowsReadByKey() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("column_texts");
    boolean mariadb = mariadb(db);
    String columns =
        "id INT PRIMARY KEY, b TINYINT(1), b2 TINYINT(1), b0 TINYINT(1), ti TINYINT, "
            + "usi SMALLINT UNSIGNED, mi MEDIUMINT, bmin BIGINT, ubig BIGINT UNSIGNED, y YEAR, "
            + "d DECIMAL(30,10), dn DECIMAL(10,2), ch CHAR(5), vc VARCHAR(40), "
            + "l1 VARCHAR(10) CHARACTER SET latin1, tx TEXT, e ENUM('sad','ok'), st SET('a','b','c')"
            + (mariadb ? ", u UUID, i4 INET4, i6 INET6" : "");
    String values =
        "(1, 1, 2, 0, -128, 65535, -8388608, -9223372036854775808, 18446744073709551615, 2024, "
            + "12345678901234567890.0123456789, -0.50, 'ab', 'q\"\\\\ é😀', 'café', "
            + "'line\\nbreak\\ttab', 'ok', 'a,c'"
            + (mariadb
                ? ", 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '192.168.0.1', '::ffff:1.2.3.4'"
                : "")
            + "), (2"
            + ", NULL".repeat(mariadb ? 20 : 17)
            + ")";
    Map<Integer, String> snapshot =
        snapshotEqualsJsonObjectAndRowsReadByKey(db, columns, "INSERT INTO types VALUES " + values);
    assertThat(snapshot.get(1))
        .contains(
            "\"b\":true",
            "\"b2\":true",
            "\"b0\":false",
            "\"ubig\":18446744073709551615",
            "\"d\":\"12345678901234567890.0123456789\"",
            "\"dn\":\"-0.50\"",
            "\"l1\":\"café\"");
  }

  /**
   * On MariaDB, whose {@code JSON_OBJECT} embeds their texts, DATE, TIME and DATETIME columns are
   * read as texts too, zero dates and times beyond a day included; TIMESTAMP as the number {@code
   * UNIX_TIMESTAMP} gives, on both.
   */
  @Test
  void dateTimeColumnsAreReadAsTextsOnMariaDb() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("column_texts_dt");
    String columns =
        "id INT PRIMARY KEY, d DATE, d0 DATETIME, d6 DATETIME(6), t3 TIME(3), t0 TIME, "
            + "ts TIMESTAMP(6) NULL, ts0 TIMESTAMP NULL, y YEAR, db DOUBLE, fl FLOAT";
    String insert =
        "SET STATEMENT sql_mode = '' FOR INSERT INTO types VALUES "
            + "(1, '2024-02-29', '2024-02-29 13:45:30', '2024-02-29 13:45:30.100000', "
            + "'-838:59:59.000', '13:45:30', '2024-02-29 13:45:30.5', '2038-01-19 03:14:07', 2024, "
            + "1e300, 1.1), "
            + "(2, '0000-00-00', '0000-00-00 00:00:00', '9999-12-31 23:59:59.999999', "
            + "'838:59:59.999', '-00:00:01', '1970-01-01 00:00:01', '0000-00-00 00:00:00', 0, "
            + "-0.0, 16777217), "
            + "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2.2250738585072014e-308, -1.5e-38), "
            + "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1/3, 3.4e38)";
    if (!mariadb(db)) {
      insert = insert.replace("SET STATEMENT sql_mode = '' FOR ", "");
    }
    Map<Integer, String> snapshot =
        snapshotEqualsJsonObjectAndRowsReadByKey(
            db, columns, mariadb(db) ? insert : insert.replace("0000-00-00", "2000-01-01"));
    assertThat(snapshot.get(1))
        .contains(
            "\"d0\":\"2024-02-29T13:45:30\"",
            "\"d6\":\"2024-02-29T13:45:30.100000\"",
            "\"t3\":\"-838:59:59.000\"",
            "\"ts\":\"2024-02-29T13:45:30.500Z\"");
    assertThat(snapshot.get(2)).contains("\"d\":\"0000-00-00\"", "\"ts0\":");
  }

  /**
   * A YEAR of zero: {@code JSON_OBJECT} printed it {@code 0000}, which is no JSON, so the row, or
   * its key in the outbox, could not be read; and bound as the text {@code '0'} a key reads the
   * year 2000. Now the number 0 in either read, and a key read back as that number.
   */
  @Test
  void aYearOfZeroIsTheNumberZeroAsValueAndAsKey() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("year_zero");
    db.execute(
        "CREATE TABLE years (y YEAR PRIMARY KEY, f BIT(2), v INT)", // BIT: read as JSON_OBJECT
        "INSERT INTO years VALUES (0, b'01', 1), (2000, b'10', 2)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("years"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      Map<Integer, String> snapshot = SourcePolls.snapshotTexts(source, "v");
      assertThat(snapshot)
          .containsEntry(1, "{\"y\":0,\"f\":\"01\",\"v\":1}")
          .containsEntry(2, "{\"y\":2000,\"f\":\"10\",\"v\":2}");
      List<RowEvent> events = new ArrayList<>();
      db.execute("UPDATE years SET v = 10 WHERE y = 0");
      SourcePolls.awaitEvents(source, events, 1);
      assertThat(Rows.text(Rows.after(events.get(0)))).isEqualTo("{\"y\":0,\"f\":\"01\",\"v\":10}");
    }
  }

  private static boolean mariadb(TestDatabases.Isolated db) {
    return db.jdbcUrl().startsWith("jdbc:mariadb");
  }

  /**
   * Creates {@code types (columns)}, runs {@code insert}, and snapshots it: its rows equal the
   * {@code JSON_OBJECT} read of the same rows; then deletes them and runs {@code insert} again: the
   * rows the tail reads by key equal the snapshot's. Returns the snapshot's rows as JSON by id.
   */
  private static Map<Integer, String> snapshotEqualsJsonObjectAndRowsReadByKey(
      TestDatabases.Isolated db, String columns, String insert) throws Exception {
    db.execute("CREATE TABLE types (" + columns + ")", insert);
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("types"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      TableSchema table = source.tables().get(0);
      MysqlFlavor flavor = mariadb(db) ? MysqlFlavor.MARIADB : MysqlFlavor.MYSQL;
      // MySQL 8 keeps JSON_OBJECT for date-times and floats (MysqlFlavor.jsonObjectEmbedsTexts)
      boolean mysql8Json =
          table.columns().stream()
              .anyMatch(
                  c ->
                      Set.of(
                              ColumnKind.DATE,
                              ColumnKind.TIME,
                              ColumnKind.TIMESTAMP,
                              ColumnKind.FLOAT)
                          .contains(c.kind()));
      assertThat(MysqlTriggers.rowSelect(flavor, table).shape())
          .isEqualTo(
              mysql8Json && !mariadb(db)
                  ? SnapshotRead.Shape.JSON_TEXT
                  : SnapshotRead.Shape.COLUMN_TEXTS);
      Map<Integer, String> snapshot = SourcePolls.snapshotTexts(source, "id");

      RowNormalizer json = new RowNormalizer(table, new MysqlDialect(flavor));
      Map<Integer, String> asJsonObject = new TreeMap<>();
      try (Connection c = db.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT "
                      + MysqlTriggers.jsonObject(table.columns(), "t")
                      + " FROM types t ORDER BY id")) {
        while (rs.next()) {
          ObjectNode row = Rows.json(table, json.encode(rs.getString(1)));
          asJsonObject.put(row.get("id").asInt(), Rows.text(row));
        }
      }
      assertThat(snapshot).isEqualTo(asJsonObject);

      List<RowEvent> events = new ArrayList<>();
      db.execute("DELETE FROM types");
      SourcePolls.awaitEvents(source, events, snapshot.size());
      db.execute(insert);
      SourcePolls.awaitEvents(source, events, 2 * snapshot.size());
      Map<Integer, String> readByKey = new TreeMap<>();
      for (RowEvent e : events.subList(snapshot.size(), events.size())) {
        assertThat(e.op()).isEqualTo(Op.INSERT);
        ObjectNode row = Rows.after(e);
        readByKey.put(row.get("id").asInt(), Rows.text(row));
      }
      assertThat(readByKey).isEqualTo(snapshot);
      return snapshot;
    }
  }

  @Test
  void aTableWithABitBinaryOrJsonColumnOrADateTimeOnMysql8KeepsJsonObject() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("column_texts_not");
    db.execute(
        "CREATE TABLE bits (id INT PRIMARY KEY, b BIT(4))",
        "CREATE TABLE blobs (id INT PRIMARY KEY, v VARBINARY(10))",
        "CREATE TABLE docs (id INT PRIMARY KEY, j JSON)",
        "CREATE TABLE times (id INT PRIMARY KEY, t DATETIME(3), d DATE, tm TIME)");
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(), null, null, List.of("bits", "blobs", "docs", "times"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      assertThat(source.tables().subList(0, 3))
          .hasSize(3)
          .allSatisfy(
              t ->
                  assertThat(MysqlTriggers.rowSelect(MysqlFlavor.MARIADB, t).shape())
                      .isEqualTo(SnapshotRead.Shape.JSON_TEXT));
      TableSchema times = source.tables().get(3);
      assertThat(MysqlTriggers.rowSelect(MysqlFlavor.MARIADB, times).shape())
          .isEqualTo(SnapshotRead.Shape.COLUMN_TEXTS);
      assertThat(MysqlTriggers.rowSelect(MysqlFlavor.MYSQL, times).shape())
          .isEqualTo(SnapshotRead.Shape.JSON_TEXT);
    }
  }
}
