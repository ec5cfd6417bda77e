package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import java.time.Duration;
import java.util.Locale;

/**
 * One client in a JVM of its own, for {@code bench/scripts/big-table.sh}: mirrors one table of the
 * benchmark's shape (generic rows, or {@link BenchTable.Row} records with {@code --typed}) from a
 * running server and prints one line: {@code ready <rows> rows in <s> s, heap after full GC <MiB>
 * MiB (<bytes> bytes a row)}, or {@code refused: <message>} when the client refuses the snapshot
 * (too big for its heap). Usage: {@code java -Xmx2g -cp tablecast-bench.jar
 * io.tablecast.bench.MirrorOnce HOST:PORT TABLE [--typed]}.
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
      TableMirror<?> m =
          typed ? client.mirror(args[1], BenchTable.Row.class) : client.mirror(args[1]);
      try {
        m.awaitReady(Duration.ofMinutes(20));
      } catch (TablecastException e) {
        System.out.println("refused: " + e.getMessage());
        return;
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long heap = Machine.heapAfterGc();
      System.out.println(
          String.format(
              Locale.ROOT,
              "ready %d rows in %.1f s, heap after full GC %d MiB (%.0f bytes a row)",
              m.size(),
              seconds,
              heap >> 20,
              heap / (double) Math.max(1, m.size())));
    }
  }
}
