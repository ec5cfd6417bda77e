package io.tablecast.bench;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * Figure 2: maximum sustained throughput database → one mirror. {@link RangeWriters} commit range
 * updates as fast as the database allows; the rate is measured at each stage — committed by the
 * database, read from the outbox by the server's tail ({@code tablecast.tail.rows}), fanned out by
 * the server ({@code tablecast.changes}), applied by the client mirror (its listener) — with the
 * CPU of each thread group, to say which stage limits it. On MySQL/MariaDB several changes of one
 * row read at once reach the mirror as one change, so fanned out and applied count changes of rows,
 * not row changes: the tail's rate is what compares with the database's.
 */
public final class ThroughputFigure implements Figure {
  static final int KEYS = 10_000;
  static final int WRITERS = 4;
  static final int ROWS_PER_TX = 100;

  record Sample(
      double t,
      long written,
      long read,
      long fanned,
      long delivered,
      double pollChanges,
      double caughtUpAge) {}

  record Result(
      Db db,
      double seconds,
      long written,
      long read,
      long fanned,
      long delivered,
      double drainSeconds,
      long writtenTotal,
      List<Sample> samples,
      ThreadCpu.Usage cpu,
      double lagP50,
      double lagP99,
      String verdict) {}

  private final List<Result> results = new ArrayList<>();

  @Override
  public String name() {
    return "throughput";
  }

  @Override
  public double estimateSeconds(Options o) {
    return 10 + o.warmupSeconds() + o.measureSeconds() * 1.5;
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    try (Rig rig = Rig.create(db, "throughput", KEYS, n -> {})) {
      rig.startServer();
      TablecastClient client = rig.client("bench-throughput");
      TableMirror<Map<String, Object>> mirror = rig.readyMirror(client, Duration.ofSeconds(60));
      AtomicLong delivered = new AtomicLong();
      mirror.addListener(ev -> delivered.incrementAndGet());
      RangeWriters writers = new RangeWriters(rig.schema, WRITERS, KEYS, ROWS_PER_TX);
      MeterRegistry reg = rig.server().metrics().registry();
      Gauge poll = reg.find("tablecast.tail.poll.changes").gauge();
      Gauge age = reg.find("tablecast.tail.caught.up.age").gauge();
      Counter changes = reg.find("tablecast.changes").counter();
      LongSupplier fanned = () -> changes == null ? -1 : (long) changes.count();
      LongSupplier read =
          () -> { // registered at the tail's first read
            Counter c = reg.find("tablecast.tail.rows").counter();
            return c == null ? 0 : (long) c.count();
          };
      writers.start();
      String label = db.label() + " max throughput";
      long startNs = System.nanoTime();
      double warm = o.warmupSeconds();
      double total = warm + o.measureSeconds();
      ThreadCpu cpu = new ThreadCpu();
      List<Sample> samples = new ArrayList<>();
      long w0 = 0;
      long r0 = 0;
      long f0 = 0;
      long d0 = 0;
      boolean measuring = false;
      while (true) {
        double t = (System.nanoTime() - startNs) / 1e9;
        if (!measuring && t >= warm) {
          measuring = true;
          cpu.start();
          w0 = writers.written.get();
          r0 = read.getAsLong();
          f0 = fanned.getAsLong();
          d0 = delivered.get();
          startNs = System.nanoTime() - (long) (warm * 1e9);
        }
        if (t >= total || writers.failure.get() != null) {
          break;
        }
        samples.add(
            new Sample(
                t,
                writers.written.get(),
                read.getAsLong(),
                fanned.getAsLong(),
                delivered.get(),
                poll == null ? Double.NaN : poll.value(),
                age == null ? Double.NaN : age.value()));
        progress.update(
            String.format(
                "%s: %.0f s of %.0f s, committed %,d, read %,d, fanned out %,d, applied %,d",
                label,
                t,
                total,
                writers.written.get(),
                read.getAsLong(),
                fanned.getAsLong(),
                delivered.get()),
            t / total);
        Thread.sleep(250);
      }
      ThreadCpu.Usage usage = cpu.stop();
      double seconds = (System.nanoTime() - startNs) / 1e9 - warm;
      long w1 = writers.written.get();
      long r1 = read.getAsLong();
      long f1 = fanned.getAsLong();
      long d1 = delivered.get();
      writers.stop();
      long stopNs = System.nanoTime();
      long finalWritten = writers.written.get();
      // drained: the tail read every committed row change and the mirror applied all that was
      // fanned out
      while ((read.getAsLong() < finalWritten || delivered.get() < fanned.getAsLong())
          && System.nanoTime() - stopNs < 120_000_000_000L) {
        progress.update(
            String.format(
                "%s: draining, outbox backlog %,d", label, finalWritten - read.getAsLong()),
            1);
        Thread.sleep(20);
      }
      double drain = (System.nanoTime() - stopNs) / 1e9;
      double[] lag = lagMillis(reg.find("tablecast.lag").timer());
      String verdict =
          verdict(
              usage,
              (w1 - w0) / seconds,
              (r1 - r0) / seconds,
              (f1 - f0) / seconds,
              (d1 - d0) / seconds);
      Result r =
          new Result(
              db,
              seconds,
              w1 - w0,
              r1 - r0,
              f1 - f0,
              d1 - d0,
              drain,
              finalWritten,
              samples,
              usage,
              lag[0],
              lag[1],
              verdict);
      results.add(r);
      progress.note(
          String.format(
              "%s: committed %.0f/s, read by the tail %.0f/s, fanned out %.0f/s, applied %.0f/s, "
                  + "drain %.1f s; %s",
              label,
              r.written / seconds,
              r.read / seconds,
              r.fanned / seconds,
              r.delivered / seconds,
              drain,
              verdict));
    }
  }

  private static double[] lagMillis(Timer lag) {
    double[] r = {Double.NaN, Double.NaN};
    if (lag != null) {
      for (ValueAtPercentile v : lag.takeSnapshot().percentileValues()) {
        if (v.percentile() == 0.5) {
          r[0] = v.value(TimeUnit.MILLISECONDS);
        } else if (v.percentile() == 0.99) {
          r[1] = v.value(TimeUnit.MILLISECONDS);
        }
      }
    }
    return r;
  }

  /**
   * Which stage limits the rate: the first whose rate falls short of the one before it, then CPU.
   */
  static String verdict(
      ThreadCpu.Usage u, double committed, double read, double fanned, double applied) {
    int cores = Runtime.getRuntime().availableProcessors();
    StringBuilder sb = new StringBuilder();
    if (read < committed * 0.95) {
      sb.append("**the tailer** (outbox → server) falls behind the database (backlog grows); ");
    } else if (applied < (fanned >= 0 ? fanned : read) * 0.95) {
      sb.append(
          "**the network or the client** falls behind the server (backlog grows in the socket/client); ");
    } else {
      sb.append(
          "every stage keeps up with the writers, so **the database** (commits with the triggers' outbox "
              + "inserts) limits the rate; ");
    }
    if (u.busiestCores() > 0.85) {
      sb.append("thread ")
          .append(u.busiestThread())
          .append(" is saturated (")
          .append(ThreadCpu.pct(u.busiestCores()))
          .append(" of a core)");
    } else if (u.machine() > cores * 0.9) {
      sb.append("the machine's CPUs are saturated (")
          .append(ThreadCpu.pct(u.machine()))
          .append(" of ")
          .append(cores)
          .append(" cores: this JVM ")
          .append(ThreadCpu.pct(u.process()))
          .append(", the rest the database servers and anything else running)");
    } else {
      sb.append("no CPU is saturated: commit latency (fsync, locks) bounds the writers");
    }
    return sb.toString();
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s = report.section("2. Maximum sustained throughput, database → one mirror");
    s.text(
        WRITERS
            + " writer connections commit transactions of one range `UPDATE` of "
            + ROWS_PER_TX
            + " rows "
            + "(the trigger fires per row) as fast as they can, each in its own slice of "
            + KEYS
            + " rows; one mirror's "
            + "listener counts applied changes. "
            + o.warmupSeconds()
            + " s warm-up, "
            + o.measureSeconds()
            + " s "
            + "measured, then the writers stop and the backlog drains. Rates per stage: **committed** row changes by the "
            + "database, **read** by the server's tail from the outbox (`tablecast.tail.rows`, row changes), **fanned "
            + "out** by the server (`tablecast.changes`) and **applied** by the client mirror, both in changes of rows: "
            + "on MySQL/MariaDB the tail reads changed rows as of one moment, so several changes of one row in one read "
            + "become one change. **sustained** is every committed change over the time until the mirror had them all. "
            + "The first stage slower than the one before it is the bottleneck; if none is, the database is. CPU is in % of "
            + "one core, by `ThreadMXBean` per thread group; the machine line includes the database servers (same "
            + "machine). **caught-up age** is the longest time the tailer went without a poll that found nothing more "
            + "(it grows while the tailer always has a backlog); **server lag** is outbox insert → fan-out.");
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      double maxPoll =
          r.samples.stream()
              .mapToDouble(Sample::pollChanges)
              .filter(d -> !Double.isNaN(d))
              .max()
              .orElse(Double.NaN);
      double avgPoll =
          r.samples.stream()
              .mapToDouble(Sample::pollChanges)
              .filter(d -> !Double.isNaN(d))
              .average()
              .orElse(Double.NaN);
      double maxAge =
          r.samples.stream()
              .mapToDouble(Sample::caughtUpAge)
              .filter(d -> !Double.isNaN(d))
              .max()
              .orElse(Double.NaN);
      rows.add(
          List.of(
              r.db.label(),
              Report.fmt(r.written / r.seconds),
              Report.fmt(r.read / r.seconds),
              Report.fmt(r.fanned / r.seconds),
              Report.fmt(r.delivered / r.seconds),
              Report.fmt(r.writtenTotal / (r.seconds + o.warmupSeconds() + r.drainSeconds)),
              Report.fmt(r.drainSeconds),
              Report.fmt(avgPoll) + " / " + Report.fmt(maxPoll),
              Report.fmt(maxAge),
              Report.fmt(r.lagP50) + " / " + Report.fmt(r.lagP99),
              ThreadCpu.pct(r.cpu.process()),
              ThreadCpu.pct(r.cpu.machine() - r.cpu.process()),
              r.cpu.busiestThread() + " " + ThreadCpu.pct(r.cpu.busiestCores())));
    }
    s.table(
        List.of(
            "database",
            "committed/s",
            "read/s",
            "fanned out/s",
            "applied/s",
            "sustained/s",
            "drain s",
            "tail poll size avg / max",
            "max caught-up age s",
            "server lag p50 / p99 ms",
            "JVM CPU",
            "rest of machine CPU",
            "busiest thread"),
        rows);
    for (Result r : results) {
      s.text("**" + r.db.label() + "** bottleneck: " + r.verdict + ".");
      s.table(List.of("threads (" + r.db.label() + ")", "CPU"), r.cpu.rows());
    }
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(500)
            .title("Throughput to one mirror")
            .xAxisTitle("s")
            .yAxisTitle("row changes/s")
            .build();
    for (Result r : results) {
      List<Double> x = new ArrayList<>();
      List<Double> wr = new ArrayList<>();
      List<Double> rr = new ArrayList<>();
      List<Double> fr = new ArrayList<>();
      List<Double> dr = new ArrayList<>();
      for (int i = 4; i < r.samples.size(); i += 4) {
        Sample a = r.samples.get(i - 4);
        Sample b = r.samples.get(i);
        double dt = b.t - a.t;
        x.add(b.t);
        wr.add((b.written - a.written) / dt);
        rr.add((b.read - a.read) / dt);
        fr.add((b.fanned - a.fanned) / dt);
        dr.add((b.delivered - a.delivered) / dt);
      }
      if (!x.isEmpty()) {
        chart.addSeries(r.db.label() + " committed", x, wr);
        chart.addSeries(r.db.label() + " read by the tail", x, rr);
        chart.addSeries(r.db.label() + " fanned out", x, fr);
        chart.addSeries(r.db.label() + " applied", x, dr);
      }
    }
    s.chart("throughput", chart);
  }
}
