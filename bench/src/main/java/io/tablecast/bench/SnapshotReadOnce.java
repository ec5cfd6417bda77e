package io.tablecast.bench;

import com.sun.management.OperatingSystemMXBean;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A server's whole-table read alone, no hub and no client: {@code ChangeSource.snapshot} of one
 * existing table into an image, {@code ROUNDS} times in one JVM. The first round is what a server's
 * start pays (its code not yet compiled), the later ones the read's own speed. Prints, per round,
 * the wall time, the calling thread's CPU and the process's (read-ahead, compiler and collector
 * threads included), then the first round and the median of the rounds after the second. The table
 * is not changed: make it first, e.g. with {@code bench/scripts/big-table.sh} or {@code
 * create_big_table} of {@code bench/scripts/processes.sh}. To compare builds, put the other build's
 * jar first on the class path: {@code java -Xmx4g -cp OLD-bench.jar:tablecast-bench.jar
 * io.tablecast.bench.SnapshotReadOnce JDBC_URL TABLE [ROUNDS (8)]}.
 */
public final class SnapshotReadOnce {

  private SnapshotReadOnce() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: SnapshotReadOnce JDBC_URL SCHEMA.TABLE [ROUNDS (8)]");
      System.exit(2);
    }
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    if (rounds < 3) {
      System.err.println("SnapshotReadOnce: ROUNDS must be 3 or more (rounds 1 and 2 warm up)");
      System.exit(2);
    }
    SourceConfig config =
        new SourceConfig(
            args[0],
            null,
            null,
            List.of(args[1]),
            true,
            null,
            null,
            Duration.ofHours(1),
            null,
            Map.of());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long[] wall = new long[rounds];
    long[] thread = new long[rounds];
    long[] process = new long[rounds];
    try (ChangeSource source = ChangeSources.open(config)) {
      for (int r = 0; r < rounds; r++) {
        IdentityHashMap<TableSchema, TableImage> images =
            new IdentityHashMap<>(); // no schema hashed a row
        long cpu = threads.getCurrentThreadCpuTime();
        long all = os.getProcessCpuTime();
        long start = System.nanoTime();
        source.snapshot((t, row) -> images.computeIfAbsent(t, TableImage::new).put(row));
        wall[r] = System.nanoTime() - start;
        thread[r] = threads.getCurrentThreadCpuTime() - cpu;
        process[r] = os.getProcessCpuTime() - all;
        int rows = images.values().stream().mapToInt(TableImage::size).sum();
        System.out.printf(
            Locale.ROOT,
            "round %d: %d rows in %d ms, reading thread %d ms CPU, process %d ms CPU%n",
            r + 1,
            rows,
            wall[r] / 1_000_000,
            thread[r] / 1_000_000,
            process[r] / 1_000_000);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "first round: %d ms (thread %d, process %d ms CPU); rounds 3-%d, medians: %d ms (thread %d,"
            + " process %d ms CPU)%n",
        wall[0] / 1_000_000,
        thread[0] / 1_000_000,
        process[0] / 1_000_000,
        rounds,
        medianAfterTwo(wall),
        medianAfterTwo(thread),
        medianAfterTwo(process));
  }

  private static long medianAfterTwo(long[] nanos) {
    long[] warm = Arrays.copyOfRange(nanos, Math.min(2, nanos.length - 1), nanos.length);
    Arrays.sort(warm);
    return warm[warm.length / 2] / 1_000_000;
  }
}
