package io.tablecast.bench;

import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.RowChange;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What a client's snapshot costs the hub thread, no database: an image of {@code ROWS} rows of the
 * benchmark's shape; each round takes the rows for ten snapshots in a row ({@code
 * TableImage.copyRows}, which the hub runs for every client that subscribes), then applies two
 * changes (the first one after the snapshots pays for whatever they left to copy), then walks one
 * snapshot's rows as the session's thread does. Prints the medians over the rounds after the first
 * two (warm-up). To compare builds, put the other build's jar first on the class path: {@code java
 * -Xmx6g -cp OLD-bench.jar:tablecast-bench.jar io.tablecast.bench.SnapshotCopyOnce [ROWS (1000000)]
 * [ROUNDS (12)]}.
 */
public final class SnapshotCopyOnce {
  private static final int SNAPSHOTS = 10;

  private SnapshotCopyOnce() {}

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    TableSchema schema = BenchImageRows.schema();
    RowForm form = new RowForm(schema.columns(), schema.primaryKey());
    TableImage image = new TableImage(schema);
    for (int i = 1; i <= rows; i++) {
      image.put(BenchImageRows.row(form, i, 0));
    }
    int measured = rounds - 2;
    long[] copy = new long[measured * SNAPSHOTS];
    long[] firstChange = new long[measured];
    long[] nextChange = new long[measured];
    long[] walk = new long[measured];
    long sink = 0;
    List<RowChange> made = new ArrayList<>(2);
    for (int round = 0; round < rounds; round++) {
      List<?>[] taken = new List<?>[SNAPSHOTS];
      long[] took = new long[SNAPSHOTS];
      for (int s = 0; s < SNAPSHOTS; s++) {
        long start = System.nanoTime();
        taken[s] = image.copyRows();
        took[s] = System.nanoTime() - start;
      }
      long[] changes = new long[2];
      for (int c = 0; c < 2; c++) {
        byte[] row = BenchImageRows.row(form, 1 + (round * 2 + c) % rows, round + 1);
        RowEvent change =
            new RowEvent.Upsert(schema.id().qualified(), schema, form.keyOf(row), row, null);
        made.clear();
        long start = System.nanoTime();
        image.apply(change, null, made);
        changes[c] = System.nanoTime() - start;
      }
      long start = System.nanoTime();
      for (Object row : taken[round % SNAPSHOTS]) {
        sink += ((byte[]) row).length;
      }
      long walked = System.nanoTime() - start;
      if (round >= 2) {
        int m = round - 2;
        System.arraycopy(took, 0, copy, m * SNAPSHOTS, SNAPSHOTS);
        firstChange[m] = changes[0];
        nextChange[m] = changes[1];
        walk[m] = walked;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "rows=%d hub: rows for a snapshot median=%.3f ms max=%.3f ms, first change after %d"
            + " snapshots=%.3f ms, next change=%.3f ms; session: walk one snapshot=%.2f ms (%d)%n",
        rows,
        median(copy) / 1e6,
        Arrays.stream(copy).max().orElse(0) / 1e6,
        SNAPSHOTS,
        median(firstChange) / 1e6,
        median(nextChange) / 1e6,
        median(walk) / 1e6,
        sink % 10);
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
