package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * What a mirror holds per row, counted object by object (JOL), on rows of the benchmark's shape
 * ({@code bench_rows}: id, version, a 10-character name, a decimal price, qty): a typed mirror
 * holds its row objects and an index of at most 32 bytes per row beside them; a generic mirror at
 * most twice the database's 59 bytes per row (MariaDB's, the smaller of the two); and a typed
 * mirror's {@code get} allocates nothing.
 */
class MirrorFootprintTest {
  static final String T = "bench.bench_rows";
  static final int ROWS = 20_000;

  static {
    // JOL reads field offsets without attaching an agent to this JVM
    System.setProperty("jol.magicFieldOffset", "true");
  }

  /** The benchmark's typed row. */
  public record Row(long id, long version, String name, BigDecimal price, int qty) {}

  static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("version", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "varchar(32)", ColumnKind.STRING),
          new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL),
          new ColumnInfo("qty", "int", ColumnKind.INTEGER));

  /** A ready mirror of {@link #ROWS} rows sent as protocol version 3 sends them. */
  private static <V> TableMirror<V> ready(FakeServer server, TablecastClient client, Class<V> type)
      throws Exception {
    TableMirror<V> m = client.mirror(T, type);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.send(new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 1, ROWS));
    RowForm form = new RowForm(COLUMNS, List.of("id"));
    List<ObjectNode> chunk = new ArrayList<>();
    for (long id = 1; id <= ROWS; id++) {
      ObjectNode r =
          row(
              "id",
              id,
              "version",
              0,
              "name",
              "row-" + (100_000 + id),
              "price",
              (id % 1000) + ".99",
              "qty",
              id % 100);
      chunk.add(PackedRow.of(form, form.encode(r)));
    }
    conn.send(new Message.SnapshotRows(T, chunk), new Message.SnapshotEnd(T, 1));
    assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
    assertThat(m.size()).isEqualTo(ROWS);
    return m;
  }

  @Test
  void aTypedMirrorHoldsItsRowObjectsAndAtMost32BytesPerRowBesideThem() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Row> m = ready(server, client, Row.class);
      long held = GraphLayout.parseInstance(((Mirror<?>) m).rows.current()).totalSize();
      Map<Object, Boolean> seen = new IdentityHashMap<>();
      List<Object> objects = new ArrayList<>();
      for (long id = 1; id <= ROWS; id++) {
        Row r = m.get(id);
        objects.add(r);
        seen.put(r, Boolean.TRUE);
      }
      assertThat(seen).hasSize(ROWS);
      long rowObjects = GraphLayout.parseInstance(objects.toArray()).totalSize();
      // the array parsed with the objects: its own bytes are not the mirror's
      long array = GraphLayout.parseInstance((Object) new Object[ROWS]).totalSize();
      double beside = (held - (rowObjects - array)) / (double) ROWS;
      assertThat(beside).as("bytes per row beside the row objects").isLessThanOrEqualTo(32);
    }
  }

  @Test
  void aGenericMirrorHoldsAtMostTwiceTheDatabasesBytesPerRow() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      @SuppressWarnings("unchecked")
      TableMirror<Map<String, Object>> m =
          (TableMirror<Map<String, Object>>) (TableMirror<?>) ready(server, client, Map.class);
      assertThat(m.get(7L)).isInstanceOf(RowView.class).containsEntry("name", "row-100007");
      long held = GraphLayout.parseInstance(((Mirror<?>) m).rows.current()).totalSize();
      assertThat(held / (double) ROWS).as("bytes per row").isLessThanOrEqualTo(2 * 59);
    }
  }

  @Test
  void aTypedMirrorsGetAllocatesNothing() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Row> m = ready(server, client, Row.class);
      Long[] keys = new Long[1024];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = (long) (i * 17 % ROWS + 1);
      }
      // the tests compile inside the client's module, which does not read java.management
      Object threads =
          Class.forName("java.lang.management.ManagementFactory")
              .getMethod("getThreadMXBean")
              .invoke(null);
      Method allocatedBytes =
          Class.forName("com.sun.management.ThreadMXBean")
              .getMethod("getThreadAllocatedBytes", long.class);
      long self = Thread.currentThread().getId();
      long found = 0;
      for (int round = 0; round < 50; round++) { // warm up
        for (Long k : keys) {
          found += m.get(k) != null ? 1 : 0;
        }
      }
      long before = (long) allocatedBytes.invoke(threads, self);
      before = (long) allocatedBytes.invoke(threads, self); // the first call's own allocations
      for (int round = 0; round < 100; round++) {
        for (Long k : keys) {
          found += m.get(k) != null ? 1 : 0;
        }
      }
      long allocated = (long) allocatedBytes.invoke(threads, self) - before;
      assertThat(found).isEqualTo(150L * keys.length);
      assertThat(allocated).as("bytes allocated by 102,400 gets").isLessThan(1024);
    }
  }
}
