package io.tablecast.cli;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "dump", mixinStandardHelpOptions = true, description = "Mirror a table, wait until it is idle, print its rows as JSON lines sorted by primary key.")
final class DumpCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "TABLE", description = "Table to dump, schema.table")
  String table;

  @Option(names = "--wait-idle", defaultValue = "0", paramLabel = "DURATION",
      description = "Stay connected until no change has arrived for this long (default 0: right after the snapshot)")
  Duration waitIdle;

  @Mixin
  ClientOptions client;

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (TablecastClient c = client.connect("tablecast-dump")) {
      TableMirror<Map<String, Object>> mirror = c.mirror(table);
      AtomicLong lastChange = new AtomicLong(System.nanoTime());
      mirror.addListener(e -> lastChange.set(System.nanoTime()));
      if (!client.awaitReady(mirror, "dump", err)) {
        return 1;
      }
      lastChange.set(System.nanoTime());
      long idleNanos = waitIdle.toNanos();
      while (true) {
        long quietFor = System.nanoTime() - lastChange.get();
        if (quietFor >= idleNanos) {
          break;
        }
        TimeUnit.NANOSECONDS.sleep(Math.min(idleNanos - quietFor, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      for (String line : RowJson.sortedRows(mirror)) {
        out.println(line);
      }
      out.flush();
      return 0;
    }
  }
}
