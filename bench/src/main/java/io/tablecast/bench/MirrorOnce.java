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
 * refused: <message>} when the client refuses the snapshot (too big for its heap). Usage: {@code
 * java -Xmx2g -cp tablecast-bench.jar io.tablecast.bench.MirrorOnce HOST:PORT TABLE [--typed]}.
 */
public final class MirrorOnce {
  private MirrorOnce() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: MirrorOnce HOST:PORT TABLE [--typed]");
      System.exit(2);
    }
    boolean typed = args.length > 2 && "--typed".equals(args[2]);
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
