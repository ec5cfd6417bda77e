package io.tablecast.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Figure 5's column reads taken apart, without a database, a server or a mirror: {@code
 * RowForm.valueToJava} (what a generic mirror's {@code row.get(column)} runs) on 10,000 rows of
 * {@code bench_rows} in the row form, filled as {@link BenchTable} fills them, read in a fixed
 * pseudo-random order: each of {@code name}, {@code price} and {@code qty} alone, and the three
 * together; and a late column of a 30-column row, walked to from the row's start and from its
 * anchors ({@link RowForm#anchors}). Run it alone with JMH:
 *
 * <pre>
 * java -cp bench/target/tablecast-bench.jar org.openjdk.jmh.Main RowReadBenchmark -f 1 -wi 5 -w 1s -i 8 -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RowReadBenchmark {
  static final int WIDE_COLUMNS = 30;

  private RowForm form;
  private byte[][] rows;
  private int[] order;

  /**
   * A table of 30 columns (the key, then STRING, INTEGER and DECIMAL in turn), its rows' anchors.
   */
  private RowForm wide;

  private byte[][] wideRows;
  private int[] wideAnchors;

  @State(Scope.Thread)
  public static class Cursor {
    int i;
  }

  @Setup
  public void setUp() {
    // the column names as a client decodes them from the wire: not the interned literals below
    form =
        new RowForm(
            List.of(
                column("id", ColumnKind.INTEGER),
                column("version", ColumnKind.INTEGER),
                column("name", ColumnKind.STRING),
                column("price", ColumnKind.DECIMAL),
                column("qty", ColumnKind.INTEGER)),
            List.of("id"));
    rows = new byte[ReadPathBenchmark.ROWS][];
    for (int i = 1; i <= rows.length; i++) {
      ObjectNode row = JsonNodeFactory.instance.objectNode();
      row.put("id", i).put("version", 0).put("name", "row-" + i);
      row.put("price", (i % 1000) + ".99").put("qty", i % 100);
      rows[i - 1] = form.encode(row);
    }
    List<ColumnInfo> wideColumns = new ArrayList<>(List.of(column("id", ColumnKind.INTEGER)));
    for (int c = 1; c < WIDE_COLUMNS; c++) {
      ColumnKind kind =
          c % 3 == 0 ? ColumnKind.DECIMAL : c % 3 == 1 ? ColumnKind.INTEGER : ColumnKind.STRING;
      wideColumns.add(column("c" + c, kind));
    }
    wide = new RowForm(wideColumns, List.of("id"));
    wideRows = new byte[rows.length][];
    wideAnchors = new int[rows.length];
    for (int i = 1; i <= rows.length; i++) {
      ObjectNode row = JsonNodeFactory.instance.objectNode().put("id", i);
      for (int c = 1; c < WIDE_COLUMNS; c++) {
        switch (c % 3) {
          case 0 -> row.put("c" + c, (i % 1000) + "." + (c % 100));
          case 1 -> row.put("c" + c, (i + c) % 100);
          default -> row.put("c" + c, "value " + c + " of row " + i);
        }
      }
      wideRows[i - 1] = wide.encode(row);
      wideAnchors[i - 1] = wide.anchors(wideRows[i - 1]);
    }
    Random r = new Random(42);
    order = new int[1 << 14];
    for (int i = 0; i < order.length; i++) {
      order[i] = r.nextInt(rows.length);
    }
  }

  private static ColumnInfo column(String name, ColumnKind kind) {
    return new ColumnInfo(new String(name.toCharArray()), "t", kind);
  }

  private byte[] next(Cursor c) {
    return rows[order[c.i++ & (order.length - 1)]];
  }

  @Benchmark
  public Object name(Cursor c) {
    return form.valueToJava(next(c), form.indexOf("name"));
  }

  @Benchmark
  public Object price(Cursor c) {
    return form.valueToJava(next(c), form.indexOf("price"));
  }

  @Benchmark
  public Object qty(Cursor c) {
    return form.valueToJava(next(c), form.indexOf("qty"));
  }

  /** The next-to-last column of a 30-column row (an INTEGER), walking from the row's start. */
  @Benchmark
  public Object wideLateColumn(Cursor c) {
    int i = order[c.i++ & (order.length - 1)];
    return wide.valueToJava(wideRows[i], WIDE_COLUMNS - 2);
  }

  /** The same, the walk starting from the row's nearest anchor, as a generic mirror's row reads. */
  @Benchmark
  public Object wideLateColumnFromAnchors(Cursor c) {
    int i = order[c.i++ & (order.length - 1)];
    return wide.valueToJava(wideRows[i], WIDE_COLUMNS - 2, wideAnchors[i]);
  }

  @Benchmark
  public void threeColumns(Cursor c, Blackhole bh) {
    byte[] row = next(c);
    bh.consume(form.valueToJava(row, form.indexOf("name")));
    bh.consume(form.valueToJava(row, form.indexOf("price")));
    bh.consume(form.valueToJava(row, form.indexOf("qty")));
  }
}
