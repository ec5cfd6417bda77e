package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One client in a JVM of its own, for {@code bench/sysbench/trigger-overhead.sh --served}: mirrors
 * the given tables (generic rows) from a running server, prints {@code ready <rows> rows} once all
 * are ready, and keeps them current until the process is stopped. Usage: {@code java -cp
 * tablecast-bench.jar io.tablecast.bench.MirrorsUntilStopped HOST:PORT TABLE...}.
 */
public final class MirrorsUntilStopped {
  private MirrorsUntilStopped() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: MirrorsUntilStopped HOST:PORT TABLE...");
      System.exit(2);
    }
    try (TablecastClient client =
        TablecastClient.builder().servers(args[0]).clientName("bench-served").build()) {
      List<TableMirror<?>> mirrors = new ArrayList<>();
      for (int i = 1; i < args.length; i++) {
        mirrors.add(client.mirror(args[i]));
      }
      long rows = 0;
      for (TableMirror<?> m : mirrors) {
        if (!m.awaitReady(Duration.ofMinutes(5))) {
          System.out.println("not ready after 5 minutes: " + m);
          System.exit(1);
        }
        rows += m.size();
      }
      System.out.println("ready " + rows + " rows");
      System.out.flush();
      new CountDownLatch(1).await(); // until the script stops this process
    }
  }
}
