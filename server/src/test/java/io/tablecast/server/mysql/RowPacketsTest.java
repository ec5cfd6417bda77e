package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.row.TextSlices;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.testing.TestDatabases;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whole-table reads on MySQL/MariaDB take each row as the driver received it ({@link RowPackets}):
 * the texts equal {@code getString}'s, value for value, for every column type Tablecast's reads
 * select bare, NULLs and long values included; a read with a column whose {@code getString} is not
 * its text as sent (a bare {@code DATETIME}) is read with {@code getString}; a row laid out
 * otherwise than the text protocol's is refused by the parser, never misread.
 */
class RowPacketsTest {

  @Test
  void aTextProtocolRowIsSlicedAtEachLengthEncodingsBoundary() {
    for (int length : new int[] {0, 1, 250, 251, 65_535, 65_536, 16_777_215, 16_777_216}) {
      byte[] value = new byte[length];
      Arrays.fill(value, (byte) 'x');
      byte[] row = row(value, null, "é".getBytes(StandardCharsets.UTF_8));
      int start = lengthBytes(length);
      TextSlices slices = RowPackets.slices(row, 3, 3, 0, start, start + length);
      assertThat(slices).as("a value of %d bytes", length).isNotNull();
      assertThat(slices.text(0)).hasSize(length);
      assertThat(slices.isNull(1)).isTrue();
      assertThat(slices.text(2)).isEqualTo("é");
      assertThat(RowPackets.slices(row, 3, 2, 2, row.length - 2, row.length).columns())
          .as("the first columns of more fields")
          .isEqualTo(2);
    }
  }

  @Test
  void aRowNotLaidOutAsTheTextProtocolsIsRefused() {
    byte[] row = row("12".getBytes(StandardCharsets.UTF_8), "ab".getBytes(StandardCharsets.UTF_8));
    assertThat(RowPackets.slices(row, 2, 2, 0, 1, 3)).isNotNull();
    assertThat(RowPackets.slices(row, 2, 2, 0, 0, 2)).as("the asked column elsewhere").isNull();
    assertThat(RowPackets.slices(row, 3, 3, 0, 1, 3)).as("fewer fields than columns").isNull();
    assertThat(RowPackets.slices(row, 1, 1, 0, 1, 3)).as("bytes after the fields").isNull();
    byte[] binary = new byte[row.length + 2]; // a binary-protocol row: 0x00, a NULL bitmap, ...
    System.arraycopy(row, 0, binary, 2, row.length);
    assertThat(RowPackets.slices(binary, 2, 2, 0, 3, 5)).isNull();
    assertThat(RowPackets.slices(new byte[] {(byte) 0xff, 1}, 1, 1, 0, 1, 2))
        .as("no such length")
        .isNull();
    assertThat(RowPackets.slices(new byte[] {(byte) 0xfd, 1, 0}, 1, 1, 0, 4, 5))
        .as("a length cut short")
        .isNull();
    assertThat(RowPackets.slices(new byte[] {5, 'a'}, 1, 1, 0, 1, 6))
        .as("a text cut short")
        .isNull();
  }

  @Test
  void everyColumnTypeReadBareGivesGetStringsTextsAndADateTimeReadsWithGetString()
      throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("row_packets");
    db.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, b TINYINT(1), ti TINYINT, usi SMALLINT UNSIGNED, "
            + "mi MEDIUMINT, bmin BIGINT, ubig BIGINT UNSIGNED, y YEAR, d DECIMAL(30,10), "
            + "f DOUBLE, ch CHAR(5), vc VARCHAR(40), l1 VARCHAR(10) CHARACTER SET latin1, "
            + "tx LONGTEXT, e ENUM('sad','ok'), st SET('a','b','c'), da DATE, tm TIME(3), "
            + "dt DATETIME(3)) CHARACTER SET utf8mb4",
        "INSERT INTO t VALUES (1, 2, -128, 65535, -8388608, -9223372036854775808, "
            + "18446744073709551615, 0, 12345678901234567890.0123456789, -1.5e-300, 'ab', "
            + "'q\"\\\\ é😀', 'café', REPEAT('0123456789', 7000), 'ok', 'a,c', '2024-02-03', "
            + "'-838:59:59.5', '2024-01-02 03:04:05.678')",
        "INSERT INTO t (id) VALUES (2)",
        "INSERT INTO t (id, tx) VALUES (3, REPEAT('é', 200))");
    String bare = "id, b, ti, usi, mi, bmin, ubig, y, d, f, ch, vc, l1, tx, e, st, da, tm";
    Read packets = read(db, "SELECT " + bare + " FROM t ORDER BY id", 18);
    assertThat(packets.asSlices).as("every row as the driver received it").isTrue();
    assertThat(packets.rows).isEqualTo(strings(db, "SELECT " + bare + " FROM t ORDER BY id", 18));
    assertThat(packets.rows.get(0)).contains("2", "0000", "-838:59:59.500");
    assertThat(packets.rows.get(1)).containsOnlyOnce("2").containsOnly("2", null);

    Read dateTime = read(db, "SELECT id, dt FROM t ORDER BY id", 2);
    assertThat(dateTime.asSlices).as("a bare DATETIME, which getString reformats").isFalse();
    assertThat(dateTime.rows).isEqualTo(strings(db, "SELECT id, dt FROM t ORDER BY id", 2));
    assertThat(dateTime.rows.get(0).get(1))
        .as("getString's form, not the text as sent")
        .isEqualTo("2024-01-02 03:04:05.678000");
  }

  @Test
  void aRowWhoseColumnsAreAllNullIsRead() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("row_packets_null");
    db.execute("CREATE TABLE t (a INT, b VARCHAR(3))", "INSERT INTO t VALUES (NULL, NULL)");
    Read read = read(db, "SELECT a, b FROM t", 2);
    assertThat(read.asSlices).isTrue();
    assertThat(read.rows).containsExactly(Arrays.asList(null, null));
  }

  private record Read(List<List<String>> rows, boolean asSlices) {}

  private static Read read(TestDatabases.Isolated db, String sql, int columns) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    boolean asSlices;
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      asSlices =
          RowPackets.read(
              rs,
              columns,
              new RowTextsFetch.Rows() {
                @Override
                public void accept(String[] texts) {
                  rows.add(Arrays.asList(texts));
                }

                @Override
                public void accept(TextSlices row) {
                  rows.add(Arrays.asList(row.texts()));
                }
              });
    }
    return new Read(rows, asSlices);
  }

  private static List<List<String>> strings(TestDatabases.Isolated db, String sql, int columns)
      throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rows.add(Arrays.asList(RowTextsFetch.texts(rs, columns)));
      }
    }
    return rows;
  }

  /** A text-protocol row of these values (null: NULL). */
  private static byte[] row(byte[]... values) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] v : values) {
      if (v == null) {
        out.write(0xfb);
        continue;
      }
      int n = v.length;
      if (n < 251) {
        out.write(n);
      } else if (n < 1 << 16) {
        out.write(0xfc);
        out.write(n);
        out.write(n >> 8);
      } else if (n < 1 << 24) {
        out.write(0xfd);
        out.write(n);
        out.write(n >> 8);
        out.write(n >> 16);
      } else {
        out.write(0xfe);
        for (int i = 0; i < 8; i++) {
          out.write(i < 4 ? n >> (8 * i) : 0);
        }
      }
      out.write(v, 0, n);
    }
    return out.toByteArray();
  }

  private static int lengthBytes(int n) {
    return n < 251 ? 1 : n < 1 << 16 ? 3 : n < 1 << 24 ? 4 : 9;
  }
}
