package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.RowIndex;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.openjdk.jol.info.GraphLayout;

/**
 * Heap per mirrored row, generic and typed, measured as heap after full GC before and after a
 * mirror of N rows of the benchmark's shape ({@code bench/}'s {@code bench_rows}: id, version, a
 * 10-character name, a decimal price, qty) is ready. Not part of the normal run, since it measures
 * rather than checks: run it with {@code ./mvnw -o -q -pl client-cache -am test
 * -Dtest=MirrorMemoryTest -Dsurefire.failIfNoSpecifiedTests=false -Dtablecast.memory.rows=200000};
 * it prints bytes per row, and (JOL) what the rows and their index hold and the retained size of
 * one typed row object.
 */
@EnabledIfSystemProperty(named = "tablecast.memory.rows", matches = "\\d+")
class MirrorMemoryTest {
  static final String T = "bench.bench_rows";

  static {
    // JOL reads field offsets without attaching an agent to this JVM
    System.setProperty("jol.magicFieldOffset", "true");
  }

  /** The benchmark's typed row. */
  public record Row(long id, long version, String name, BigDecimal price, int qty) {}

  @Test
  void bytesPerRowOfGenericAndTypedMirrors() throws Exception {
    int rows = Integer.getInteger("tablecast.memory.rows");
    double[] generic = measure(rows, null);
    double[] typed = measure(rows, Row.class);
    System.out.printf(
        "mirror of %,d rows: generic %.0f bytes/row, typed %.0f bytes/row%n",
        rows, generic[0], typed[0]);
    System.out.printf(
        "JOL: generic mirror's rows and index %.1f bytes/row; typed mirror's %.1f bytes/row, of"
            + " which the row object %.1f (retained) and the index %.1f%n",
        generic[1], typed[1], typed[2], typed[1] - typed[2]);
  }

  /**
   * {heap after GC per row, JOL size of the rows and their index per row, JOL retained size of a
   * row object (the mean over every 100th row)}.
   */
  private static double[] measure(int rows, Class<?> type) throws Exception {
    try (FakeServer server = new FakeServer()) {
      long before = heapAfterGc();
      TablecastClient client = TablecastClient.builder().servers(server.address()).build();
      TableMirror<?> m = type == null ? client.mirror(T) : client.mirror(T, type);
      FakeServer.Conn conn = server.handshake(1);
      conn.expect(Message.Subscribe.class);
      List<ColumnInfo> columns = MirrorFootprintTest.COLUMNS;
      conn.send(new Message.SnapshotBegin(T, columns, List.of("id"), 1, rows));
      // rows as a server of protocol version 3 sends them: the row form of this layout
      RowForm form = new RowForm(columns, List.of("id"));
      for (int start = 1; start <= rows; start += 1000) {
        List<ObjectNode> chunk = new ArrayList<>(1000);
        for (long id = start; id < start + 1000 && id <= rows; id++) {
          chunk.add(
              packed(
                  form,
                  row(
                      "id",
                      id,
                      "version",
                      0,
                      "name",
                      "row-" + id,
                      "price",
                      (id % 1000) + ".99",
                      "qty",
                      id % 100)));
        }
        conn.channel.writeAndFlush(new Message.SnapshotRows(T, chunk)).sync();
      }
      conn.send(new Message.SnapshotEnd(T, 1));
      assertThat(m.awaitReady(Duration.ofSeconds(120))).isTrue();
      assertThat(m.size()).isEqualTo(rows);
      long after = heapAfterGc();
      RowIndex<?> index = ((Mirror<?>) m).rows.current();
      double held = GraphLayout.parseInstance(index).totalSize() / (double) rows;
      long objects = 0;
      int sampled = 0;
      for (long id = 1; id <= rows; id += 100, sampled++) {
        objects += GraphLayout.parseInstance(m.get(id)).totalSize();
      }
      client.close();
      return new double[] {(after - before) / (double) rows, held, objects / (double) sampled};
    }
  }

  private static ObjectNode packed(RowForm form, ObjectNode row) {
    return PackedRow.of(form, form.encode(row));
  }

  private static long heapAfterGc() throws InterruptedException {
    Runtime runtime = Runtime.getRuntime();
    long previous = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
      long used = runtime.totalMemory() - runtime.freeMemory();
      if (Math.abs(previous - used) < (1 << 18)) {
        return used;
      }
      previous = used;
    }
    return previous;
  }
}
