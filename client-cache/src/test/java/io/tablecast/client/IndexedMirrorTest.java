package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static io.tablecast.client.IndexDefinition.hash;
import static io.tablecast.client.IndexDefinition.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Secondary indexes of a mirror: lookups, ranges and queries follow inserts, updates that move a
 * row between keys, deletes, primary-key changes and re-snapshots, for generic and typed rows.
 */
class IndexedMirrorTest {
  static final String T = "shop.orders";
  static final Duration WAIT = Duration.ofSeconds(10);

  /** The application's row type. */
  public record Order(long id, String region, String status, Long total) {}

  private static List<Object> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> (Object) ((Number) r.get("id")).longValue()).toList();
  }

  @Test
  void genericIndexesFollowInsertsUpdatesAndDeletes() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m =
          client.mirror(
              T,
              List.of(
                  hash("by_region", "region"),
                  sorted("by_total", "total"),
                  hash("by_region_status", "region", "status")));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T,
          List.of("id"),
          1,
          row("id", 1, "region", "EU", "status", "open", "total", 30),
          row("id", 2, "region", "US", "status", "open", "total", 10),
          row("id", 3, "region", "EU", "status", "paid", "total", 20));
      assertThat(m.awaitReady(WAIT)).isTrue();

      MirrorIndex<Map<String, Object>> byRegion = m.index("by_region");
      MirrorIndex<Map<String, Object>> byTotal = m.index("by_total");
      assertThat(ids(byRegion.get("EU"))).containsExactlyInAnyOrder(1L, 3L);
      assertThat(ids(byTotal.ordered())).containsExactly(2L, 3L, 1L);
      assertThat(ids(byTotal.range(10, false, 30, true))).containsExactly(3L, 1L);
      assertThat(ids(byTotal.range(20L, true, null, true))).containsExactly(3L, 1L);
      assertThat(ids(m.index("by_region_status").get(List.of("EU", "paid")))).containsExactly(3L);

      conn.send(
          batch(
              2,
              update(
                  T,
                  row("id", 1, "region", "EU", "status", "open", "total", 30),
                  row("id", 1, "region", "US", "status", "open", "total", 5),
                  1),
              insert(T, row("id", 4, "region", "EU", "status", "open", "total", 40), 4),
              delete(T, row("id", 3, "region", "EU", "status", "paid", "total", 20), 3)));
      await().atMost(WAIT).until(() -> m.position() == 2);

      assertThat(ids(byRegion.get("EU"))).containsExactly(4L);
      assertThat(ids(byRegion.get("US"))).containsExactlyInAnyOrder(1L, 2L);
      assertThat(ids(byTotal.ordered())).containsExactly(1L, 2L, 4L);
      assertThat(byRegion.get("APAC")).isEmpty();
      assertThat(m.index("by_region_status").get(List.of("EU", "paid"))).isEmpty();
      assertThat(
              ids(
                  m.query()
                      .where("by_region", "US")
                      .whereRange("by_total", null, true, 10, false)
                      .list()))
          .containsExactly(1L);
      assertThat(
              ids(
                  m.query()
                      .whereRange("by_total", 0, true, 100, true)
                      .filter(r -> "open".equals(r.get("status")))
                      .filter(r -> !"US".equals(r.get("region")))
                      .list()))
          .containsExactly(4L);
      assertThat(m.query().list()).hasSize(3);
    }
  }

  @Test
  void resultsAreCopiesThatLaterChangesDoNotReach() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(hash("by_region", "region")));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 1, row("id", 1, "region", "EU"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      List<Map<String, Object>> eu = m.index("by_region").get("EU");
      conn.send(batch(2, insert(T, row("id", 2, "region", "EU"), 2)));
      await().atMost(WAIT).until(() -> m.position() == 2);
      assertThat(ids(eu)).containsExactly(1L);
      assertThatThrownBy(() -> eu.add(Map.of())).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> m.query().where("by_region", "EU").list().clear())
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void nullKeysAreFoundByNullAndNeverInARange() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(sorted("by_total", "total")));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 1, row("id", 1, "total", 7), row("id", 2, "total", null));
      assertThat(m.awaitReady(WAIT)).isTrue();
      MirrorIndex<Map<String, Object>> byTotal = m.index("by_total");
      assertThat(ids(byTotal.get(null))).containsExactly(2L);
      assertThat(ids(byTotal.ordered())).containsExactly(1L);
      assertThat(ids(byTotal.range(null, true, 100, true))).containsExactly(1L);
      assertThatThrownBy(() -> m.index("by_owner"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no index named by_owner")
          .hasMessageContaining("by_total");
    }
  }

  @Test
  void aHashIndexRefusesRangesNamingItself() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(hash("by_region", "region")));
      assertThatThrownBy(() -> m.index("by_region").range("A", true, "Z", true))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("by_region of shop.orders is a hash index");
      assertThatThrownBy(() -> client.mirror(T, List.of(sorted("by_region", "region"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already has an index named by_region");
      assertThat(client.mirror(T, List.of(hash("by_region", "region")))).isSameAs(m);
      assertThatThrownBy(() -> hash("by_region", "region").columns("area"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("index by_region is by the columns [region]");
      assertThatThrownBy(() -> hash("by_nothing"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("index by_nothing needs at least one column");
      assertThatThrownBy(() -> sorted(" ", "region"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("index name must not be blank, was \" \"");
    }
  }

  @Test
  void typedIndexesByRecordComponentSurviveAReSnapshotWithDifferences() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            TablecastClient.builder()
                .servers(server.address())
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                .build()) {
      TableMirror<Order> m =
          client.mirror(
              T,
              Order.class,
              List.of(
                  IndexDefinition.hash("by_status", Order::status),
                  IndexDefinition.<Order>sorted(
                      "by_region_total", o -> List.of(o.region(), o.total()))));
      FakeServer.Conn conn = server.handshake(10);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T,
          List.of("id"),
          10,
          row("id", 1, "region", "EU", "status", "open", "total", 30),
          row("id", 2, "region", "EU", "status", "open", "total", 10));
      assertThat(m.awaitReady(WAIT)).isTrue();
      assertThat(m.index("by_status").get("open"))
          .extracting(Order::id)
          .containsExactlyInAnyOrder(1L, 2L);

      conn.close();
      FakeServer.Conn again = server.handshake("epoch-2", 50, 10_000);
      again.expect(Message.Subscribe.class);
      again.snapshot(
          T,
          List.of("id"),
          50,
          row("id", 2, "region", "EU", "status", "paid", "total", 10),
          row("id", 3, "region", "EU", "status", "open", "total", 20));
      await().atMost(WAIT).until(() -> m.position() == 50);

      assertThat(m.index("by_status").get("open")).extracting(Order::id).containsExactly(3L);
      assertThat(m.index("by_status").getOne("paid").id()).isEqualTo(2L);
      assertThat(m.index("by_region_total").range(List.of("EU", 10), false, null, true))
          .extracting(Order::id)
          .containsExactly(3L);
      assertThat(m.index("by_region_total").ordered())
          .extracting(Order::id)
          .containsExactly(2L, 3L);
    }
  }

  @Test
  void aGenericSortedIndexOrdersADecimalColumnByValue() throws Exception {
    List<ColumnInfo> columns =
        List.of(
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL));
    List<ObjectNode> rows = packed(columns, "price", "100.25", "9.50", "10.00", null);
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(sorted("by_price", "price")));
      snapshot(server, columns, rows);
      assertThat(m.awaitReady(WAIT)).isTrue();
      assertThat(m.get(1L)).isInstanceOf(RowView.class);
      MirrorIndex<Map<String, Object>> byPrice = m.index("by_price");
      assertThat(ids(byPrice.ordered())).containsExactly(2L, 3L, 1L);
      assertThat(ids(byPrice.get(new BigDecimal("9.5")))).containsExactly(2L);
      assertThat(ids(byPrice.get(10))).containsExactly(3L);
      assertThat(ids(byPrice.range(new BigDecimal("9.99"), true, null, true)))
          .containsExactly(3L, 1L);
      assertThat(ids(byPrice.get(null))).containsExactly(4L);
    }
  }

  /**
   * A TIMESTAMP_TZ value is the text {@code Instant.toString()} prints, whose whole seconds have no
   * fraction: as text {@code ...:30Z} sorted after {@code ...:30.500Z}. Keyed as the instant, the
   * index orders by time, and is looked up with the text or an {@code Instant}.
   */
  @Test
  void aGenericSortedIndexOrdersATimestampTzColumnByTime() throws Exception {
    List<ColumnInfo> columns =
        List.of(
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("at", "timestamptz", ColumnKind.TIMESTAMP_TZ));
    List<ObjectNode> rows =
        packed(
            columns,
            "at",
            "2024-02-29T11:45:30.500Z",
            "2024-02-29T11:45:30Z",
            "2024-02-29T11:45:29.999999Z");
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(sorted("by_at", "at")));
      snapshot(server, columns, rows);
      assertThat(m.awaitReady(WAIT)).isTrue();
      MirrorIndex<Map<String, Object>> byAt = m.index("by_at");
      assertThat(ids(byAt.ordered())).containsExactly(3L, 2L, 1L);
      assertThat(ids(byAt.get("2024-02-29T11:45:30Z"))).containsExactly(2L);
      assertThat(ids(byAt.get(Instant.parse("2024-02-29T11:45:30.5Z")))).containsExactly(1L);
      assertThat(ids(byAt.range("2024-02-29T11:45:30Z", true, null, true))).containsExactly(2L, 1L);
    }
  }

  /**
   * Rows of {@code columns} in the row form: id {@code i + 1} and {@code column} {@code values[i]}.
   */
  private static List<ObjectNode> packed(
      List<ColumnInfo> columns, String column, String... values) {
    RowForm form = new RowForm(columns, List.of("id"));
    List<ObjectNode> rows = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      rows.add(PackedRow.of(form, form.encode(row("id", i + 1, column, values[i]))));
    }
    return rows;
  }

  /** Answers the mirror's subscription to {@code T} with a snapshot of {@code rows}. */
  private static void snapshot(FakeServer server, List<ColumnInfo> columns, List<ObjectNode> rows)
      throws Exception {
    FakeServer.Conn conn = server.handshake(0);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.SnapshotBegin(T, columns, List.of("id"), 1, rows.size()),
        new Message.SnapshotRows(T, rows),
        new Message.SnapshotEnd(T, 1));
  }
}
