package io.tablecast.cli;

import io.tablecast.client.SnapshotProgress;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import io.tablecast.server.progress.Progress;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description = {
      "Mirror a table, wait until it is idle, print its rows sorted by primary key: as JSON lines "
          + "(the default), CSV or an aligned table.",
      "A large table's snapshot shows its progress on standard error (a line on a terminal, else "
          + "log lines)."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:the rows, as the server follows the table",
      "1:no rows: the table was refused or gave no snapshot in time (standard error says why), "
          + "or the output could not be written",
      "2:the command line is wrong",
      "3:the rows were printed but may differ from the table: the server or client said so "
          + "(standard error says why, e.g. the table's capture trigger is disabled)"
    })
final class DumpCommand implements Callable<Integer> {

  /** The exit code of a dump whose rows may differ from the table (the mirror was stale). */
  static final int STALE = 3;

  /** The values --format completes to. */
  static final class FormatNames extends java.util.ArrayList<String> {
    FormatNames() {
      super(java.util.List.of("json", "csv", "table"));
    }
  }

  @Parameters(index = "0", paramLabel = "TABLE", description = "Table to dump, schema.table")
  String table;

  @Option(
      names = "--wait-idle",
      defaultValue = "0",
      paramLabel = "DURATION",
      description =
          "Stay connected until no change has arrived for this long (default 0: right after the snapshot)")
  Duration waitIdle;

  @Option(
      names = "--format",
      defaultValue = "json",
      paramLabel = "FORMAT",
      completionCandidates = FormatNames.class,
      description = {
        "json: one object per row; csv: RFC 4180 with a header (null is an empty field, an "
            + "empty string \"\"); table: aligned columns for reading (default: ${DEFAULT-VALUE})"
      })
  DumpFormat format;

  @Mixin ShapeOptions rows;

  @Mixin ClientOptions client;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (TablecastClient c = client.connect("dump", err)) {
      TableMirror<Map<String, Object>> mirror = client.mirror(c, table, rows.shape());
      AtomicLong lastChange = new AtomicLong(System.nanoTime());
      mirror.addListener(e -> lastChange.set(System.nanoTime()));
      boolean ready;
      // closed before anything else is printed: a terminal line ends first
      // not a static logger: picocli creates every command at start, and the logging backend
      // would be set up before `demo` chose its level
      Logger log = LoggerFactory.getLogger(DumpCommand.class);
      try (Progress progress = Progress.start("dump " + table, "rows", -1, log)) {
        progress.countFrom(
            () -> mirror.snapshotProgress().rowsReceived(),
            () -> {
              SnapshotProgress p = mirror.snapshotProgress();
              return p.equals(SnapshotProgress.NONE) ? -1 : p.rowsExpected();
            });
        ready = client.ready(mirror);
      }
      if (!ready) {
        client.reportNotReady(mirror, "dump", err);
        return 1;
      }
      try {
        // every change committed before the dump began is in the rows after this, and the
        // server's word on whether the table is stale, sent right behind its snapshot, has come
        c.sync(client.timeout);
      } catch (TablecastException e) {
        err.println(
            "tablecast dump: the rows may lack changes committed just before the dump began: "
                + e.getMessage());
      }
      lastChange.set(System.nanoTime());
      long idleNanos = waitIdle.toNanos();
      while (true) {
        long quietFor = System.nanoTime() - lastChange.get();
        if (quietFor >= idleNanos) {
          break;
        }
        TimeUnit.NANOSECONDS.sleep(
            Math.min(idleNanos - quietFor, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      String stale = mirror.staleReason(); // before the rows: they are as new as this or newer
      String lineEnd = System.lineSeparator();
      for (String line : format.lines(mirror.columns(), RowJson.sortedRowMaps(mirror))) {
        out.print(line); // not println: picocli's writer would flush, a write for each row
        out.print(lineEnd);
      }
      out.flush();
      if (stale != null) {
        err.println(
            "tablecast dump: the rows of "
                + table
                + " printed may differ from its table: "
                + stale);
        err.flush();
        return STALE;
      }
      return 0;
    }
  }
}
