package io.tablecast.bench;

import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * Figure 3: the same change stream to 1, 100 and 1,000 subscribers. Subscribers are raw binary
 * connections ({@link RawSubscribers}) so that a thousand of them fit in the bench JVM; the writer
 * commits a fixed rate of changes; we measure aggregate changes delivered per second, the server
 * threads' CPU and the heap.
 */
public final class FanoutFigure implements Figure {
  static final int KEYS = 1_000;
  static final int RATE = 1_000;
  static final int ROWS_PER_TX = 10;

  record Result(
      Db db,
      int subscribers,
      double committedRate,
      double deliveredRate,
      double serverCpu,
      double harnessCpu,
      double processCpu,
      double machineCpu,
      long heapBytes,
      double lagP50,
      double lagP99,
      String busiest,
      double busiestCores) {}

  private final List<Result> results = new ArrayList<>();

  @Override
  public String name() {
    return "fanout";
  }

  @Override
  public double estimateSeconds(Options o) {
    return 6 + o.subscribers().size() * (o.warmupSeconds() + o.measureSeconds() + 6);
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    try (Rig rig = Rig.create(db, "fanout", KEYS, n -> {})) {
      rig.startServer();
      int port = rig.server().port();
      for (int k : o.subscribers()) {
        results.add(measure(o, rig, List.of(port), k, db.label() + " fan-out x" + k, progress));
      }
    }
  }

  /**
   * {@code perServer} raw subscribers on each of the servers at {@code ports} (on loopback), the
   * writer committing {@link #RATE} changes/s to {@code rig}'s table: one warm-up and one measured
   * phase.
   */
  static Result measure(
      Options o, Rig rig, List<Integer> ports, int perServer, String label, Progress progress)
      throws Exception {
    int k = ports.size() * perServer;
    Db db = rig.schema.db();
    try (RawSubscribers subs = new RawSubscribers()) {
      for (int port : ports) {
        subs.connect("127.0.0.1", port, rig.table(), perServer);
      }
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (subs.ready.get() < k && System.nanoTime() < deadline && subs.error.get() == null) {
        progress.update(
            String.format("%s: %d of %d subscribers snapshotted", label, subs.ready.get(), k), 0);
        Thread.sleep(50);
      }
      if (subs.ready.get() < k) {
        throw new IllegalStateException(
            label
                + ": only "
                + subs.ready.get()
                + " subscribers ready; error: "
                + subs.error.get());
      }
      double phase = o.warmupSeconds() + o.measureSeconds();
      long ops = (long) Math.ceil(phase * RATE / (double) ROWS_PER_TX);
      OpenLoopWriter w =
          new OpenLoopWriter(rig.schema, 2, RATE / (double) ROWS_PER_TX, ops, ROWS_PER_TX, KEYS);
      w.start();
      ThreadCpu cpu = new ThreadCpu();
      boolean measuring = false;
      long c0 = 0;
      long w0 = 0;
      long startNs = 0;
      while (true) {
        double t = (System.nanoTime() - w.t0) / 1e9;
        if (!measuring && t >= o.warmupSeconds()) {
          measuring = true;
          cpu.start();
          subs.recordLag = true;
          c0 = subs.changes.sum();
          w0 = w.done.get();
          startNs = System.nanoTime();
        }
        if (t >= phase || w.failure.get() != null) {
          break;
        }
        progress.update(
            String.format(
                "%s: %.0f s of %.0f s, delivered %,d changes",
                label, Math.max(0, t), phase, subs.changes.sum()),
            Math.max(0, t) / phase);
        Thread.sleep(250);
      }
      ThreadCpu.Usage usage = cpu.stop();
      double secs = (System.nanoTime() - startNs) / 1e9;
      long delivered = subs.changes.sum() - c0;
      long committed = (w.done.get() - w0) * ROWS_PER_TX;
      subs.recordLag = false;
      w.stop();
      w.join(10_000);
      w.check();
      long heap = Machine.heapAfterGc();
      var h = subs.captureToReceiptMs;
      Result r =
          new Result(
              db,
              k,
              committed / secs,
              delivered / secs,
              usage.serverThreads(),
              usage.group("bench-sub"),
              usage.process(),
              usage.machine(),
              heap,
              h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(50),
              h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99),
              usage.busiestThread(),
              usage.busiestCores());
      progress.note(
          String.format(
              "%s: committed %.0f/s, delivered %.0f changes/s in aggregate (%.0f%% of %d x "
                  + "committed), server threads %s CPU, heap %d MiB, capture->receipt p99 %.0f ms",
              label,
              r.committedRate,
              r.deliveredRate,
              100 * r.deliveredRate / Math.max(1, k * r.committedRate),
              k,
              ThreadCpu.pct(r.serverCpu),
              heap >> 20,
              r.lagP99));
      return r;
    }
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s = report.section("3. Fan-out: one stream to many subscribers");
    s.text(
        "The writer commits "
            + RATE
            + " row changes/s (transactions of "
            + ROWS_PER_TX
            + " rows, open loop) on a "
            + KEYS
            + "-row table. Subscribers are raw binary-protocol connections in the bench JVM (hello, subscribe, "
            + "answer pings, count the changes of each batch without building rows): a real `TableMirror` per "
            + "subscriber would measure the bench JVM, not the server. **delivered/s** is the sum over subscribers; "
            + "ideal = subscribers × committed/s. **server CPU** is the server's threads (tail, hub, snapshot, Netty "
            + "event loops) in % of one core; **subscribers' CPU** is the harness's event loop (it reads every frame "
            + "but walks a batch's changes only once, as all subscribers get the same bytes); the JVM process also "
            + "contains the writers, GC and JIT; the rest of the machine is mostly the database. Below 100 % of ideal, "
            + "compare the server's CPU with the rest: all run on the same cores. Heap is "
            + "after full GC with all subscribers connected (the whole bench JVM). **capture→receipt** is "
            + "from the outbox insert (database clock, ms) to the subscriber's receipt.");
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(
          List.of(
              r.db.label(),
              String.format("%,d", r.subscribers),
              Report.fmt(r.committedRate),
              Report.fmt(r.deliveredRate),
              String.format(
                  "%.0f%%", 100 * r.deliveredRate / Math.max(1, r.subscribers * r.committedRate)),
              ThreadCpu.pct(r.serverCpu),
              ThreadCpu.pct(r.harnessCpu),
              ThreadCpu.pct(r.processCpu),
              ThreadCpu.pct(r.machineCpu - r.processCpu),
              String.format("%,d", r.heapBytes >> 20),
              Report.fmt(r.lagP50) + " / " + Report.fmt(r.lagP99),
              r.busiest + " " + ThreadCpu.pct(r.busiestCores)));
    }
    s.table(
        List.of(
            "database",
            "subscribers",
            "committed/s",
            "delivered/s (sum)",
            "of ideal",
            "server CPU",
            "subscribers' CPU (harness)",
            "JVM process CPU",
            "rest of machine CPU",
            "heap MiB",
            "capture→receipt p50 / p99 ms",
            "busiest thread"),
        rows);
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title("Fan-out: changes delivered per second")
            .xAxisTitle("subscribers")
            .yAxisTitle("row changes/s delivered (sum, log)")
            .build();
    for (Db db : Db.values()) {
      List<String> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (Result r : results) {
        if (r.db == db) {
          x.add(String.format("%,d", r.subscribers));
          y.add(Math.max(1, r.deliveredRate));
        }
      }
      if (!x.isEmpty()) {
        chart.addSeries(db.label(), x, y);
      }
    }
    Report.logYAxis(chart);
    s.chart("fanout", chart);
  }
}
