package io.tablecast.bench;

import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.image.TableReads;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The hub's side of reconciliation alone, no database: an image of {@code ROWS} rows of the
 * benchmark's shape, compared pass after pass with ranges of 1,000 equal rows through {@code
 * TableReads.differences}, which the hub thread runs for each range. Prints, per pass after the
 * first (warm-up), the median and largest time of a range and the time of the pass's last range,
 * where the pass finds what is gone from the table; every subscriber waits on the hub thread for
 * that long. To compare builds, put the other build's jar first on the class path: {@code java
 * -Xmx6g -cp OLD-bench.jar:tablecast-bench.jar io.tablecast.bench.ReconcilePassOnce [ROWS
 * (1000000)] [PASSES (6)]}.
 */
public final class ReconcilePassOnce {
  private static final int RANGE_ROWS = 1_000; // DriftCheck.CHUNK_ROWS

  private ReconcilePassOnce() {}

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int passes = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    TableSchema schema = BenchImageRows.schema();
    RowForm form = new RowForm(schema.columns(), schema.primaryKey());
    TableImage image = new TableImage(schema);
    List<byte[]> table = new ArrayList<>(rows);
    for (int i = 1; i <= rows; i++) {
      image.put(BenchImageRows.row(form, i, 0));
      table.add(BenchImageRows.row(form, i, 0)); // the database's copy: equal bytes, another array
    }
    TableImages images = new TableImages();
    images.replaceAll(List.of(image));
    TableReads reads = new TableReads(images, ServerMetrics.NOOP, changed -> {});
    int ranges = (rows + RANGE_ROWS - 1) / RANGE_ROWS;
    for (int pass = 0; pass < passes; pass++) {
      long[] micros = new long[ranges];
      for (int r = 0; r < ranges; r++) {
        List<byte[]> range = table.subList(r * RANGE_ROWS, Math.min(rows, (r + 1) * RANGE_ROWS));
        CommittedBatch.TableRead read =
            new CommittedBatch.TableRead(
                schema,
                range,
                CommittedBatch.Purpose.RECONCILE,
                new CommittedBatch.Chunk(r == 0, r == ranges - 1));
        long start = System.nanoTime();
        int repairs = reads.differences(read).size();
        micros[r] = (System.nanoTime() - start) / 1_000;
        if (repairs != 0) {
          throw new IllegalStateException(repairs + " repairs where the table equals its image");
        }
      }
      long last = micros[ranges - 1];
      long[] others = Arrays.copyOf(micros, Math.max(1, ranges - 1));
      Arrays.sort(others);
      if (pass > 0) {
        System.out.printf(
            Locale.ROOT,
            "pass %d rows=%d range median=%.2f ms max=%.2f ms last=%.2f ms%n",
            pass,
            rows,
            others[others.length / 2] / 1000.0,
            others[others.length - 1] / 1000.0,
            last / 1000.0);
      }
    }
  }
}
