package io.tablecast.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Figure 7: what the tail's poll schedule costs and buys. For each schedule ({@code
 * --poll-schedules}) a fresh schema, the server with that schedule and one mirror: first idle for
 * {@code --idle-seconds} (no writes: the reads of the outbox per second, from the server's {@code
 * tablecast_tail_reads_total}), then figure 1's latency run at the first of {@code --rates} (reads
 * per second again, and commit→visible). Before and after each phase it prints a line starting with
 * {@value #MARK} on standard output, so that {@code bench/sysbench/poll-cost.py}, which runs it,
 * can read the database server's CPU from {@code /proc} around exactly that phase.
 */
final class PollCostFigure implements Figure {
  static final String MARK = "#POLLCOST";

  /** One schedule on one database. */
  record Result(
      Db db,
      PollSchedule schedule,
      double idleReadsPerSecond,
      double busyReadsPerSecond,
      LatencyRun.Result latency) {}

  private final List<Result> results = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  public String name() {
    return "pollcost";
  }

  @Override
  public double estimateSeconds(Options o) {
    return o.pollSchedules().size()
        * (8 + o.idleSeconds() + o.warmupSeconds() + o.measureSeconds() + 3);
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    int rate = o.rates().get(0);
    for (PollSchedule schedule : o.pollSchedules()) {
      progress.update(db.label() + " poll schedule " + schedule.name() + ": setting up", 0);
      try (TablecastSubject subject = TablecastSubject.start(db, LatencyRun.KEYS, schedule)) {
        String metrics = "http://" + subject.rig().address() + "/metrics";
        Thread.sleep(3_000); // the back-off reaches its longest pause, the JIT settles
        String tag = db.name().toLowerCase(Locale.ROOT) + " " + schedule.name();
        double reads0 = reads(metrics);
        long t0 = System.nanoTime();
        mark("idle-begin " + tag);
        Thread.sleep(o.idleSeconds() * 1000L);
        mark("idle-end " + tag);
        double idle = (reads(metrics) - reads0) / ((System.nanoTime() - t0) / 1e9);
        double reads1 = reads(metrics);
        long t1 = System.nanoTime();
        mark("busy-begin " + tag + " rate " + rate);
        LatencyRun.Result latency = LatencyRun.measure(o, subject, rate, progress);
        mark("busy-end " + tag);
        double busy = (reads(metrics) - reads1) / ((System.nanoTime() - t1) / 1e9);
        results.add(new Result(db, schedule, idle, busy, latency));
        mark(
            String.format(
                Locale.ROOT,
                "result %s idle_reads_per_s %.1f busy_reads_per_s %.1f p50 %.3f p99 %.3f p999 %.3f"
                    + " max %.3f achieved %.1f not_seen %d",
                tag,
                idle,
                busy,
                Hist.ms(latency.fromCommit(), 50),
                Hist.ms(latency.fromCommit(), 99),
                Hist.ms(latency.fromCommit(), 99.9),
                Hist.maxMs(latency.fromCommit()),
                latency.achieved(),
                latency.missing()));
      }
    }
  }

  private static void mark(String what) {
    System.out.println(MARK + " " + what);
    System.out.flush();
  }

  /** The server's {@code tablecast_tail_reads_total}. */
  private double reads(String url) throws IOException, InterruptedException {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    for (String line : body.lines().toList()) {
      if (line.startsWith("tablecast_tail_reads_total")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new IllegalStateException("no tablecast_tail_reads_total in " + url);
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s = report.section("7. The tail's poll schedule: reads of the outbox, latency");
    s.text(
        "Per schedule, a fresh schema, the server and one generic mirror: "
            + o.idleSeconds()
            + " s idle, then "
            + o.rates().get(0)
            + " single-row updates/s as in figure 1. Reads/s from the server's "
            + "`tablecast_tail_reads_total`; the database's CPU is read around each phase by "
            + "`bench/sysbench/poll-cost.py`. Times in ms, commit→visible.");
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(
          List.of(
              r.db().label(),
              r.schedule().name(),
              Report.fmt(r.idleReadsPerSecond()),
              Report.fmt(r.busyReadsPerSecond()),
              Report.fmt(Hist.ms(r.latency().fromCommit(), 50)),
              Report.fmt(Hist.ms(r.latency().fromCommit(), 99)),
              Report.fmt(Hist.ms(r.latency().fromCommit(), 99.9)),
              Report.fmt(r.latency().achieved())));
    }
    s.table(
        List.of(
            "database",
            "schedule",
            "reads/s idle",
            "reads/s at the rate",
            "p50",
            "p99",
            "p99.9",
            "achieved/s"),
        rows);
  }
}
