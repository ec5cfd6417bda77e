package io.tablecast.cli;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description =
        "Mirror a table and print one JSON line per applied change, until interrupted or until"
            + " whatever reads the output closes it.")
final class WatchCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "TABLE", description = "Table to watch, schema.table")
  String table;

  @Mixin ShapeOptions rows;

  @Mixin ClientOptions client;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (TablecastClient c = client.connect("watch", err)) {
      TableMirror<Map<String, Object>> mirror = client.mirror(c, table, rows.shape());
      String lineEnd = System.lineSeparator();
      CountDownLatch outputClosed = new CountDownLatch(1);
      mirror.addBatchListener(
          changes -> { // one flush, so one write to a pipe, per batch rather than per line
            for (ChangeEvent<Map<String, Object>> e : changes) {
              out.print(RowJson.change(mirror, e));
              out.print(lineEnd); // not println: picocli's writer flushes on each println
            }
            out.flush();
            // `| head`: the reader went away (or the output failed: CommandOutput tells the exit)
            if (out.checkError()) {
              outputClosed.countDown();
            }
          });
      if (!client.awaitReady(mirror, "watch", err)) {
        return 1;
      }
      int rows = mirror.size();
      err.println(
          "watching " + table + " (" + rows + (rows == 1 ? " row" : " rows") + "); Ctrl-C to stop");
      err.flush();
      outputClosed.await();
      return 0;
    }
  }
}
