package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Op;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.SourcePolls;
import io.tablecast.server.testing.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: a table whose every column's {@code JSON_OBJECT} form is its value as the server
 * sends it in text (integers signed and unsigned, TINYINT(1), YEAR, decimals, character types in
 * other character sets, ENUM, SET, MariaDB's UUID and INET types) is read whole as one text per
 * column; its snapshot rows equal, byte for byte, the rows the tail reads by key as {@code
 * JSON_OBJECT} after the triggers record them. A table with a BIT, FLOAT, binary or temporal column
 * keeps {@code JSON_OBJECT}.
 */
class MysqlColumnTextsTest {

  @Test
  void aTableOfTextKindsIsReadAsColumnTextsAndItsRowsEqualTheRowsReadByKey() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("column_texts");
    boolean mariadb = db.jdbcUrl().startsWith("jdbc:mariadb");
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
    db.execute("CREATE TABLE types (" + columns + ")", "INSERT INTO types VALUES " + values);
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("types"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config)) {
      assertThat(MysqlTriggers.rowSelect(source.tables().get(0)).shape())
          .isEqualTo(SnapshotRead.Shape.COLUMN_TEXTS);
      Map<Integer, String> snapshot = new TreeMap<>();
      source.snapshot(
          (t, row) ->
              snapshot.put(Rows.json(t, row).get("id").asInt(), Rows.text(Rows.json(t, row))));
      assertThat(snapshot).hasSize(2);
      assertThat(snapshot.get(1))
          .contains(
              "\"b\":true",
              "\"b2\":true",
              "\"b0\":false",
              "\"ubig\":18446744073709551615",
              "\"d\":\"12345678901234567890.0123456789\"",
              "\"dn\":\"-0.50\"",
              "\"l1\":\"café\"");

      List<RowEvent> events = new ArrayList<>();
      db.execute("DELETE FROM types");
      SourcePolls.awaitEvents(source, events, 2);
      db.execute("INSERT INTO types VALUES " + values);
      SourcePolls.awaitEvents(source, events, 4);
      assertThat(events)
          .extracting(RowEvent::op)
          .containsExactly(Op.DELETE, Op.DELETE, Op.INSERT, Op.INSERT);
      assertThat(Rows.text(Rows.after(events.get(2)))).isEqualTo(snapshot.get(1));
      assertThat(Rows.text(Rows.after(events.get(3)))).isEqualTo(snapshot.get(2));
    }
  }

  @Test
  void aTableWithABitFloatBinaryOrTemporalColumnKeepsJsonObject() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("column_texts_not");
    db.execute(
        "CREATE TABLE bits (id INT PRIMARY KEY, b BIT(4))",
        "CREATE TABLE floats (id INT PRIMARY KEY, f FLOAT)",
        "CREATE TABLE blobs (id INT PRIMARY KEY, v VARBINARY(10))",
        "CREATE TABLE times (id INT PRIMARY KEY, t DATETIME)");
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(),
            null,
            null,
            List.of("bits", "floats", "blobs", "times"),
            true,
            null,
            null);
    try (ChangeSource source = ChangeSources.open(config)) {
      assertThat(source.tables())
          .hasSize(4)
          .allSatisfy(
              t ->
                  assertThat(MysqlTriggers.rowSelect(t).shape())
                      .isEqualTo(SnapshotRead.Shape.JSON_TEXT));
    }
  }
}
