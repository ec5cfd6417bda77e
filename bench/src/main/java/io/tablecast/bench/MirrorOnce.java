package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import java.time.Duration;
import java.util.Locale;

/**
 * One client in a JVM of its own, for {@code bench/scripts/big-table.sh}: mirrors one table of the
 * benchmark's shape (generic rows, or {@link BenchTable.Row} records with {@code --typed}) from a
 * running server and prints the bytes its threads allocated per row while loading, then one line:
 * {@code ready <rows> rows in <s> s, heap after full GC <MiB> MiB (<bytes> bytes a row)}, or {@code
 * refused: <message>} when the client refuses the snapshot (too big for its heap). With {@code
 * --reads}, before that line, the time of {@code get} on random keys of the whole table (ids 1 to
 * its row count, as the benchmark table's), after the heap was measured: a mirror much larger than
 * the processor's caches reads from memory. With {@code --follow JDBC_URL RATE SECONDS}, then,
 * changes written at RATE a second for SECONDS into the table (through JDBC_URL, where {@code
 * bench_rows} names it) and the time each takes to become visible, with the garbage collector's
 * pauses meanwhile ({@link MirrorFollow}). Usage: {@code java -Xmx2g -cp tablecast-bench.jar
 * io.tablecast.bench.MirrorOnce HOST:PORT TABLE [--typed] [--reads] [--follow URL RATE SECONDS]}.
 */
public final class MirrorOnce {
  private MirrorOnce() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println(
          "usage: MirrorOnce HOST:PORT TABLE [--typed] [--reads] [--follow URL RATE SECONDS]");
      System.exit(2);
    }
    java.util.List<String> options = java.util.Arrays.asList(args).subList(2, args.length);
    boolean typed = options.contains("--typed");
    boolean reads = options.contains("--reads");
    try (TablecastClient client =
        TablecastClient.builder().servers(args[0]).clientName("mirror-once").build()) {
      long t0 = System.nanoTime();
      long allocated0 = allocatedByLiveThreads();
      TableMirror<?> m =
          typed ? client.mirror(args[1], BenchTable.Row.class) : client.mirror(args[1]);
      try {
        m.awaitReady(Duration.ofMinutes(20));
      } catch (TablecastException e) {
        System.out.println("refused: " + e.getMessage());
        return;
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long sinceJvmStart = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
      long allocated = allocatedByLiveThreads() - allocated0;
      System.out.println(
          String.format(
              Locale.ROOT,
              "allocated %.0f bytes a row while loading (the JVM's live threads)",
              allocated / (double) Math.max(1, m.size())));
      System.out.println("ready " + sinceJvmStart + " ms after the JVM started");
      long heap = Machine.heapAfterGc();
      if (reads) {
        System.out.println(randomGets(m));
      }
      int follow = options.indexOf("--follow");
      if (follow >= 0) {
        System.out.println(
            MirrorFollow.run(
                m,
                options.get(follow + 1),
                Double.parseDouble(options.get(follow + 2)),
                Integer.parseInt(options.get(follow + 3))));
      }
      System.out.println(
          String.format(
              Locale.ROOT,
              "ready %d rows in %.3f s, heap after full GC %d MiB (%.0f bytes a row)",
              m.size(),
              seconds,
              heap >> 20,
              heap / (double) Math.max(1, m.size())));
    }
  }

  /**
   * Nanoseconds a {@code get} of a random key takes, median of seven rounds of a million keys
   * (boxed beforehand, as a caller holding its keys has them), the first two rounds left out as the
   * JIT's warm-up.
   */
  private static String randomGets(TableMirror<?> m) {
    int n = 1_000_000;
    java.util.SplittableRandom random = new java.util.SplittableRandom(42);
    Long[] keys = new Long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = 1 + random.nextLong(m.size());
    }
    double[] nanos = new double[5];
    long found = 0;
    for (int round = -2; round < nanos.length; round++) {
      long t0 = System.nanoTime();
      for (Long key : keys) {
        found += m.get(key) != null ? 1 : 0;
      }
      if (round >= 0) {
        nanos[round] = (System.nanoTime() - t0) / (double) n;
      }
    }
    java.util.Arrays.sort(nanos);
    return String.format(
        Locale.ROOT,
        "reads: get of a random key %.0f ns (median of five rounds of %d keys, %.0f-%.0f; %d found)",
        nanos[2],
        n,
        nanos[0],
        nanos[4],
        found);
  }

  /** Bytes allocated so far by the threads alive now (HotSpot's per-thread counters). */
  private static long allocatedByLiveThreads() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      sum += Math.max(0, b);
    }
    return sum;
  }
}
