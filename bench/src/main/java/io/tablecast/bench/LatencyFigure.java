package io.tablecast.bench;

import java.awt.Color;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Figure 1: commit-to-mirror latency at fixed write rates, Tablecast side by side with Debezium's
 * embedded engine feeding a map. For each rate, each system in turn gets a fresh schema of {@link
 * LatencyRun#KEYS} rows, is started, measured by {@link LatencyRun} and stopped, so one never
 * competes with the other (Debezium's log reader would otherwise decode Tablecast's writes too).
 */
public final class LatencyFigure implements Figure {
  static final String TABLECAST = "tablecast";
  static final String DEBEZIUM = "debezium";

  private final List<LatencyRun.Result> results = new ArrayList<>();

  @Override
  public String name() {
    return "latency";
  }

  @Override
  public double estimateSeconds(Options o) {
    double perRun = o.warmupSeconds() + o.measureSeconds() + 3;
    double setup =
        (o.latencySystems().contains(TABLECAST) ? 4 : 0)
            + (o.latencySystems().contains(DEBEZIUM) ? 8 : 0)
            + 6 * o.latencySystems().stream().filter(ExternalClient.options()::contains).count();
    return o.rates().size() * (o.latencySystems().size() * perRun + setup);
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    List<String> failures = new ArrayList<>();
    for (int rate : o.rates()) {
      for (String system : o.latencySystems()) {
        progress.update(
            String.format("%s %s latency @%d/s: setting up", db.label(), system, rate), 0);
        try (LatencySubject subject = start(system, db, o)) {
          results.add(LatencyRun.measure(o, subject, rate, progress));
        } catch (Exception e) {
          failures.add(system + " @" + rate + "/s: " + e.getMessage());
          progress.note(db.label() + " " + system + " @" + rate + "/s FAILED: " + e);
        }
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(String.join("; ", failures));
    }
  }

  private static LatencySubject start(String system, Db db, Options o)
      throws IOException, InterruptedException {
    return switch (system) {
      case TABLECAST -> TablecastSubject.start(db, LatencyRun.KEYS);
      case DEBEZIUM ->
          DebeziumMirror.start(db, LatencyRun.KEYS, o.debeziumPollMillis(), Duration.ofMinutes(2));
      default -> {
        if (!ExternalClient.options().contains(system)) {
          throw new IllegalArgumentException(
              "unknown system '"
                  + system
                  + "': use tablecast, debezium, "
                  + String.join(", ", ExternalClient.options()));
        }
        yield LineFedSubject.start(
            db, LatencyRun.KEYS, ExternalClient.forOption(system), Duration.ofSeconds(90));
      }
    };
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s =
        report.section(
            "1. Commit-to-mirror latency at fixed write rates, every client path and Debezium");
    s.text(
        "Single-row `UPDATE`s in autocommit on an open-loop schedule over "
            + LatencyRun.KEYS
            + " rows, from "
            + LatencyRun.MIN_WRITERS
            + " writer connections (one per 300 changes/s at higher rates, at most "
            + LatencyRun.MAX_WRITERS
            + "). **Tablecast**: triggers, the server and one `TableMirror` (generic rows) "
            + "in this JVM; a mirror listener (called after the batch is visible) records when each version is "
            + "visible. **Debezium**: the same table without triggers, Debezium "
            + debeziumVersion()
            + "'s embedded "
            + "engine (MariaDB connector on the binlog; PostgreSQL connector with `pgoutput`) putting each row into a "
            + "`ConcurrentHashMap` in this JVM; visible = right after `put`. **Tablecast, tablecast watch** / "
            + "**Node client** / **browser** (`--systems watch,node,browser`): the same server, and as its client "
            + "`bin/tablecast watch`, `bench/js/latency-client.mjs` (client-js in Node) or `bench/js/latency-page.html` "
            + "(client-js in headless Chromium) in a process of its own; visible = when this JVM has read the line "
            + "carrying the version (from the client's stdout pipe; from the page over a WebSocket to the bench), so "
            + "the way out of the client is included. For each rate the systems run one after the "
            + "other, each on a fresh schema, never at the same time. **commit→visible** starts when `executeUpdate` "
            + "returned; **intended→visible** starts at the operation's scheduled time (a slow or stalled database "
            + "counts: no coordinated omission). "
            + o.warmupSeconds()
            + " s warm-up, "
            + o.measureSeconds()
            + " s measured per rate and system. Times in ms. **JVM CPU** is this process during the measured "
            + "seconds (server + client, or engine + map, plus the writers; not an external client's process), in % of one core.");
    s.text(
        "Debezium is tuned for latency as its documentation describes the settings: "
            + String.join(", ", DebeziumMirror.reportedSettings(o.debeziumPollMillis()))
            + ". Sources: the connector "
            + "properties `poll.interval.ms` and `max.batch.size` in "
            + "https://debezium.io/documentation/reference/stable/connectors/mariadb.html and "
            + "https://debezium.io/documentation/reference/stable/connectors/postgresql.html (the queue hands a batch "
            + "to the engine when `max.batch.size` events are queued or `poll.interval.ms` has passed; the PostgreSQL "
            + "connector also sleeps `poll.interval.ms` when the replication stream is idle), the engine properties "
            + "and offset stores in https://debezium.io/documentation/reference/stable/development/engine.html.");
    List<List<String>> rows = new ArrayList<>();
    for (LatencyRun.Result r : results) {
      rows.add(
          List.of(
              r.db().label(),
              r.system(),
              String.format("%,d", r.rate()),
              Report.fmt(r.achieved()),
              String.format("%,d", r.samples()),
              Report.fmt(Hist.ms(r.fromCommit(), 50)),
              Report.fmt(Hist.ms(r.fromCommit(), 99)),
              Report.fmt(Hist.ms(r.fromCommit(), 99.9)),
              Report.fmt(Hist.maxMs(r.fromCommit())),
              Report.fmt(Hist.ms(r.fromIntended(), 50)),
              Report.fmt(Hist.ms(r.fromIntended(), 99)),
              Report.fmt(Hist.ms(r.fromIntended(), 99.9)),
              Report.fmt(Hist.ms(r.write(), 50)),
              Report.fmt(Hist.ms(r.write(), 99)),
              String.valueOf(r.missing()),
              r.cpu() == null ? "n/a" : ThreadCpu.pct(r.cpu().process()),
              r.cpu() == null ? "n/a" : r.cpu().top(2)));
    }
    s.table(
        List.of(
            "database",
            "system",
            "target/s",
            "achieved/s",
            "samples",
            "commit→visible p50",
            "p99",
            "p99.9",
            "max",
            "intended→visible p50",
            "p99",
            "p99.9",
            "write (intended→commit) p50",
            "p99",
            "not seen",
            "JVM CPU",
            "busiest thread groups"),
        rows);
    firstSecond(o, s);
    s.chart("latency", chart());
  }

  /** The table of the first second of writes after each subject connected. */
  private void firstSecond(Options o, Report.Section s) {
    s.text(
        "**First second after connecting**: the writes due in the first second after the subject was"
            + " started and had its snapshot (its JIT still cold), "
            + (o.warmupSeconds() >= 1
                ? "part of the warm-up and so not in the table above."
                : "partly measured in the table above too, as the warm-up is shorter than 1 s."));
    List<List<String>> rows = new ArrayList<>();
    for (LatencyRun.Result r : results) {
      LatencyRun.FirstSecond f = r.firstSecond();
      rows.add(
          List.of(
              r.db().label(),
              r.system(),
              String.format("%,d", r.rate()),
              String.format("%,d", f.samples()),
              String.valueOf(f.missing()),
              Report.fmt(Hist.ms(f.fromCommit(), 50)),
              Report.fmt(Hist.ms(f.fromCommit(), 99)),
              Report.fmt(Hist.maxMs(f.fromCommit()))));
    }
    s.table(
        List.of(
            "database",
            "system",
            "target/s",
            "samples",
            "not seen",
            "commit→visible p50",
            "p99",
            "max"),
        rows);
  }

  private CategoryChart chart() {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(1400)
            .height(600)
            .title("Commit-to-mirror latency (commit→visible), every client path and Debezium")
            .xAxisTitle("write rate (row changes/s)")
            .yAxisTitle("ms (log)")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    List<String> systems = results.stream().map(LatencyRun.Result::system).distinct().toList();
    for (Db db : Db.values()) {
      for (String system : systems) {
        List<String> x = new ArrayList<>();
        List<List<Double>> y = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        double[] percentiles = {50, 99, 99.9};
        for (LatencyRun.Result r : results) {
          if (r.db() == db && r.system().equals(system)) {
            x.add(String.format("%,d", r.rate()));
            for (int i = 0; i < percentiles.length; i++) {
              double v = Hist.ms(r.fromCommit(), percentiles[i]);
              y.get(i).add(Double.isNaN(v) ? 0.001 : Math.max(0.001, v));
            }
          }
        }
        if (!x.isEmpty()) {
          // one hue per database and system, darker for higher percentiles
          float hue = (db == Db.MARIADB ? 0.6f : 0.33f) + 0.15f * systems.indexOf(system);
          String[] names = {" p50", " p99", " p99.9"};
          for (int i = 0; i < names.length; i++) {
            chart
                .addSeries(db.label() + " " + system + names[i], x, y.get(i))
                .setFillColor(Color.getHSBColor(hue % 1f, 0.35f + 0.3f * i, 0.95f - 0.25f * i));
          }
        }
      }
    }
    Report.logYAxis(chart);
    return chart;
  }

  static String debeziumVersion() {
    return io.debezium.connector.mariadb.Module.version();
  }
}
