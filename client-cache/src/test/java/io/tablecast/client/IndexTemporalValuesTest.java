package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.IndexDefinition.hash;
import static io.tablecast.client.IndexDefinition.sorted;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An index of generic rows by column names reads a date, time, date-time, instant or decimal column
 * by its kind ({@link IndexValues}), rows and lookups alike: a lookup by a {@code LocalDate}, a
 * {@code java.sql.Date}, an {@code OffsetDateTime}, a {@code LocalTime}, or by the text in another
 * form than the rows' ({@code 2026-10-25 02:30}, {@code 9.5} for {@code 9.50}) finds the rows the
 * text as rows carry it finds; ranges order by time, years BC and negative MySQL times included.
 * Before, such a value was compared with the rows' texts as it was: no row, without a word, and a
 * sorted index on a date put 0044-03-15 BC after 0001-01-01.
 */
class IndexTemporalValuesTest {
  private static final String T = "shop.events";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("day", "date", ColumnKind.DATE),
          new ColumnInfo("stamp", "datetime(6)", ColumnKind.TIMESTAMP),
          new ColumnInfo("clock", "time(3)", ColumnKind.TIME),
          new ColumnInfo("at", "timestamptz", ColumnKind.TIMESTAMP_TZ),
          new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL));

  /** Rows 1..4 in time order in every column, as the server sends them (docs/TYPES.md). */
  private static final String[][] VALUES = {
    {
      "0044-03-15 BC",
      "0044-03-15T13:45:30.500000 BC",
      "-838:59:59.000",
      "-0043-03-15T12:00:00Z",
      "-1.00"
    },
    {"0001-01-01", "2026-10-25T02:30:00.000000", "-00:00:01.000", "2024-02-29T11:45:30Z", "9.50"},
    {
      "2026-01-01",
      "2026-10-25T02:30:00.100000",
      "08:15:00.000",
      "2024-02-29T11:45:30.500Z",
      "10.00"
    },
    {
      "infinity", "9999-12-31T23:59:59.999999", "838:59:59.000", "+294276-12-31T23:59:59Z", "100.25"
    },
  };

  private static List<ObjectNode> rows() {
    RowForm form = new RowForm(COLUMNS, List.of("id"));
    List<ObjectNode> rows = new ArrayList<>();
    for (int i = 0; i < VALUES.length; i++) {
      String[] v = VALUES[i];
      ObjectNode r =
          row("id", i + 1, "day", v[0], "stamp", v[1], "clock", v[2], "at", v[3], "price", v[4]);
      rows.add(PackedRow.of(form, form.encode(r)));
    }
    return rows;
  }

  private static List<Object> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> (Object) ((Number) r.get("id")).longValue()).toList();
  }

  @Test
  void aDateTimeOrDecimalColumnIsLookedUpAndOrderedByItsKind() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      List<IndexDefinition<Map<String, Object>>> indexes = new ArrayList<>();
      for (String c : List.of("day", "stamp", "clock", "at", "price")) {
        indexes.add(sorted("by_" + c, c));
      }
      indexes.add(hash("day_price", "day", "price"));
      TableMirror<Map<String, Object>> m = client.mirror(T, indexes);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      List<ObjectNode> rows = rows();
      conn.send(
          new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 1, rows.size()),
          new Message.SnapshotRows(T, rows),
          new Message.SnapshotEnd(T, 1));
      assertThat(m.awaitReady(WAIT)).isTrue();

      for (String c : List.of("day", "stamp", "clock", "at", "price")) {
        assertThat(ids(m.index("by_" + c).ordered())).as(c).containsExactly(1L, 2L, 3L, 4L);
      }
      MirrorIndex<Map<String, Object>> day = m.index("by_day");
      assertThat(ids(day.get(LocalDate.of(2026, 1, 1)))).containsExactly(3L);
      assertThat(ids(day.get(java.sql.Date.valueOf("2026-01-01")))).containsExactly(3L);
      assertThat(ids(day.get("2026-01-01"))).as("the text as rows carry it").containsExactly(3L);
      assertThat(ids(day.get(LocalDate.of(-43, 3, 15)))).containsExactly(1L);
      assertThat(ids(day.get(LocalDate.MAX)))
          .as("infinity, as PgJDBC reads it")
          .containsExactly(4L);
      assertThat(ids(day.range(LocalDate.of(-100, 1, 1), true, LocalDate.of(2026, 1, 1), false)))
          .containsExactly(1L, 2L);

      MirrorIndex<Map<String, Object>> stamp = m.index("by_stamp");
      assertThat(ids(stamp.get(LocalDateTime.of(2026, 10, 25, 2, 30)))).containsExactly(2L);
      assertThat(ids(stamp.get("2026-10-25 02:30"))).containsExactly(2L);
      assertThat(ids(stamp.get(java.sql.Timestamp.valueOf("2026-10-25 02:30:00.1"))))
          .containsExactly(3L);
      assertThat(ids(stamp.range(LocalDateTime.of(2026, 10, 25, 2, 30), false, null, true)))
          .containsExactly(3L, 4L);

      MirrorIndex<Map<String, Object>> clock = m.index("by_clock");
      assertThat(ids(clock.get(LocalTime.of(8, 15)))).containsExactly(3L);
      assertThat(ids(clock.get("08:15"))).containsExactly(3L);
      assertThat(ids(clock.range(Duration.ofSeconds(-1), true, LocalTime.NOON, true)))
          .containsExactly(2L, 3L);

      MirrorIndex<Map<String, Object>> at = m.index("by_at");
      OffsetDateTime inParis =
          OffsetDateTime.of(2024, 2, 29, 12, 45, 30, 500_000_000, ZoneOffset.ofHours(1));
      assertThat(ids(at.get(inParis))).containsExactly(3L);
      assertThat(ids(at.get(Instant.parse("2024-02-29T11:45:30Z")))).containsExactly(2L);
      assertThat(ids(at.get("2024-02-29 11:45:30+00"))).containsExactly(2L);
      assertThat(ids(at.range(Instant.EPOCH, true, null, true))).containsExactly(2L, 3L, 4L);

      MirrorIndex<Map<String, Object>> price = m.index("by_price");
      assertThat(ids(price.get("9.5"))).containsExactly(2L);
      assertThat(ids(price.get(new BigDecimal("9.500")))).containsExactly(2L);
      assertThat(ids(m.index("day_price").get(List.of(LocalDate.of(2026, 1, 1), 10))))
          .containsExactly(3L);
      assertThat(
              ids(
                  m.query()
                      .whereRange("by_day", LocalDate.of(1, 1, 1), true, null, true)
                      .where("by_price", "100.25")
                      .list()))
          .containsExactly(4L);
    }
  }
}
