package io.tablecast.bench;

import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The benchmark runner: {@code java -jar bench/target/tablecast-bench.jar all --out
 * bench-results/}, usually started by {@code bench/run.sh}. Runs the chosen figures on each
 * database, prints progress with an ETA, and writes {@code REPORT.md} and PNG charts into the
 * output directory (after every figure, so an interrupted run still leaves what it measured).
 */
@Command(
    name = "tablecast-bench",
    mixinStandardHelpOptions = true,
    description =
        "Runs the Tablecast benchmark suite and writes <out>/REPORT.md with PNG charts.%n"
            + "Databases: TABLECAST_BENCH_MYSQL_URL, TABLECAST_BENCH_PG_URL (JDBC URLs with credentials), else the "
            + "bench's own instances (bench/scripts/start-dbs.sh) when running, else the shared 3306/5432.%n"
            + "The one command for everything: bench/run.sh (starts the databases, runs all figures).")
public final class BenchMain implements Callable<Integer> {

  @Parameters(
      arity = "1..*",
      paramLabel = "FIGURE",
      description =
          "all, or some of: latency throughput fanout snapshot reads triggers (and added figures);"
              + " pollcost (not in all: bench/sysbench/poll-cost.py runs it)")
  List<String> figures = new ArrayList<>();

  @Option(
      names = "--out",
      defaultValue = "bench-results",
      description = "report directory (default ${DEFAULT-VALUE})")
  Path out;

  @Option(
      names = "--quick",
      description =
          "short version: 2 s warm-up and 8 s measured per phase, fewer JMH iterations, shorter sysbench runs")
  boolean quick;

  @Option(
      names = "--db",
      split = ",",
      defaultValue = "mariadb,postgresql",
      description = "databases (default ${DEFAULT-VALUE})")
  List<String> dbs;

  @Option(
      names = "--rates",
      split = ",",
      defaultValue = "100,1000,10000",
      description = "latency figure write rates, row changes/s (default ${DEFAULT-VALUE})")
  List<Integer> rates;

  @Option(names = "--seconds", description = "measured seconds per phase (default 30, --quick 8)")
  Integer seconds;

  @Option(names = "--warmup", description = "warm-up seconds per phase (default 5, --quick 2)")
  Integer warmup;

  @Option(
      names = "--snapshot-rows",
      defaultValue = "1000000",
      description = "rows of the snapshot table (default ${DEFAULT-VALUE})")
  long snapshotRows;

  @Option(
      names = "--subscribers",
      split = ",",
      defaultValue = "1,100,1000",
      description = "fan-out subscriber counts (default ${DEFAULT-VALUE})")
  List<Integer> subscribers;

  @Option(
      names = "--scaleout-parts",
      split = ",",
      defaultValue = "latency,moving,fanout,failover",
      description = "parts of the scale-out figure to run (default ${DEFAULT-VALUE})")
  List<String> scaleOutParts;

  @Option(
      names = "--systems",
      split = ",",
      defaultValue = "tablecast,debezium",
      description =
          "systems the latency figure compares: tablecast, debezium, and Tablecast through a client"
              + " process: watch (bin/tablecast watch), node (client-js in Node), browser (client-js in"
              + " headless Chromium) (default ${DEFAULT-VALUE})")
  List<String> systems;

  @Option(
      names = "--debezium-poll-ms",
      defaultValue = "1",
      description =
          "Debezium poll.interval.ms in the latency figure (default ${DEFAULT-VALUE}; Debezium's own: 500)")
  int debeziumPollMillis;

  @Option(
      names = "--sysbench-seconds",
      description = "seconds per sysbench run, trigger overhead (default 30, --quick 10)")
  Integer sysbenchSeconds;

  @Option(
      names = "--sysbench-rounds",
      description = "rounds of with/without runs, trigger overhead (default 5, --quick 2)")
  Integer sysbenchRounds;

  @Option(
      names = "--poll-schedules",
      split = ",",
      defaultValue = "1,2,5,10,backoff,default",
      description =
          "pollcost figure: the tail's poll schedules, each a fixed pause in ms, backoff (1 ms doubling"
              + " to 10 ms after every empty poll) or default (default ${DEFAULT-VALUE})")
  List<String> pollSchedules;

  @Option(
      names = "--idle-seconds",
      defaultValue = "15",
      description =
          "pollcost figure: seconds each schedule is measured idle (default ${DEFAULT-VALUE})")
  int idleSeconds;

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }

  static Map<String, Figure> available() {
    Map<String, Figure> all = new LinkedHashMap<>();
    for (Figure f :
        List.of(
            new LatencyFigure(),
            new ThroughputFigure(),
            new FanoutFigure(),
            new SnapshotFigure(),
            new ReadPathFigure(),
            new TriggerOverheadFigure(),
            new PollCostFigure())) {
      all.put(f.name(), f);
    }
    for (Figure f : ServiceLoader.load(Figure.class)) {
      all.putIfAbsent(f.name(), f);
    }
    return all;
  }

  @Override
  public Integer call() throws Exception {
    Map<String, Figure> available = available();
    List<Figure> chosen = new ArrayList<>();
    for (String name : figures) {
      if (name.equals("all")) {
        // pollcost is run by bench/sysbench/poll-cost.py, which reads the database's CPU around it
        available.values().stream()
            .filter(f -> !(f instanceof PollCostFigure))
            .forEach(chosen::add);
      } else if (available.containsKey(name)) {
        chosen.add(available.get(name));
      } else {
        throw new CommandLine.ParameterException(
            new CommandLine(this),
            "unknown figure '" + name + "'; known: all, " + String.join(", ", available.keySet()));
      }
    }
    List<Db> dbList = dbs.stream().map(Db::parse).distinct().toList();
    List<String> scaleOut;
    try {
      scaleOut = ScaleOutFigure.parts(scaleOutParts);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage(), e);
    }
    Options o =
        new Options(
            out,
            quick,
            dbList,
            rates,
            seconds != null ? seconds : quick ? 8 : 30,
            warmup != null ? warmup : quick ? 2 : 5,
            snapshotRows,
            subscribers,
            systems.stream()
                .map(x -> x.trim().toLowerCase(java.util.Locale.ROOT))
                .distinct()
                .toList(),
            debeziumPollMillis,
            sysbenchSeconds != null ? sysbenchSeconds : quick ? 10 : 30,
            sysbenchRounds != null ? sysbenchRounds : quick ? 2 : 5,
            pollSchedules.stream().map(PollSchedule::parse).toList(),
            idleSeconds,
            scaleOut);
    double total = 0;
    for (Figure f : chosen) {
      total += f.estimateSeconds(o) * dbList.size();
    }
    Progress progress = new Progress(System.out, total);
    Report report = new Report(out);
    String started =
        ZonedDateTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    List<List<String>> machine = Machine.describe(dbList);
    System.out.printf(
        "Tablecast benchmark: %s on %s; planned about %s%n",
        chosen.stream().map(Figure::name).toList(), dbList, Progress.duration(total));
    List<String> failures = new ArrayList<>();
    for (Figure f : chosen) {
      for (Db db : dbList) {
        progress.begin(f.name() + " / " + db.label(), f.estimateSeconds(o));
        try {
          f.run(o, db, progress, report);
          progress.end("done");
        } catch (Exception | Error e) {
          failures.add(f.name() + " on " + db.label() + ": " + e);
          progress.end("FAILED: " + e);
          e.printStackTrace(System.out);
        }
      }
      f.finish(o, report);
      report.header(header(o, chosen, started, machine, failures, progress));
      report.write();
    }
    report.header(header(o, chosen, started, machine, failures, progress));
    Path written = report.write();
    System.out.printf(
        "Report: %s (%s)%n",
        written.toAbsolutePath(), Progress.duration(progress.elapsedSeconds()));
    return failures.isEmpty() ? 0 : 1;
  }

  private static String header(
      Options o,
      List<Figure> chosen,
      String started,
      List<List<String>> machine,
      List<String> failures,
      Progress progress) {
    StringBuilder sb = new StringBuilder("# Tablecast benchmark report\n\n");
    sb.append("Started ")
        .append(started)
        .append(", ran ")
        .append(Progress.duration(progress.elapsedSeconds()))
        .append(". Figures: ")
        .append(chosen.stream().map(Figure::name).toList())
        .append(". ")
        .append(o.quick() ? "**Short version (`--quick`)**: " : "")
        .append(o.warmupSeconds())
        .append(" s warm-up and ")
        .append(o.measureSeconds())
        .append(
            " s measured per phase. Server and clients run in this JVM over loopback; the databases run on ")
        .append("the same machine. Load average at the end: ")
        .append(Machine.loadAverage())
        .append(" (anything above the core count means other work competed with the run).\n\n");
    sb.append(Report.markdownTable(List.of("machine", "value"), machine)).append('\n');
    if (!failures.isEmpty()) {
      sb.append("**Failed:**\n\n");
      failures.forEach(f -> sb.append("- ").append(f.replace('\n', ' ')).append('\n'));
      sb.append('\n');
    }
    return sb.toString();
  }
}
