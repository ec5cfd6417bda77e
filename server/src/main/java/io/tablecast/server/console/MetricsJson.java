package io.tablecast.server.console;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's own meters (the ones {@code GET /metrics} renders, docs/PROTOCOL.md) read back as
 * one JSON object for the console's charts and panels: totals since the start, which the page turns
 * into rates between two readings, and gauges. Reads the registry only (thread-safe, no waiting on
 * any stage).
 */
final class MetricsJson {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final MeterRegistry registry;

  MetricsJson(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Every reading, at {@code nowMillis}. */
  ObjectNode read(long nowMillis) {
    ObjectNode out = NODES.objectNode();
    out.put("time", nowMillis);
    out.put("clients", gauge("tablecast.clients"));
    out.put("batches", counter("tablecast.batches"));
    out.put("changes", counter("tablecast.changes"));
    out.set("lag", lag());
    ObjectNode outbox = out.putObject("outbox");
    outbox.put("backlog", gauge("tablecast.outbox.backlog"));
    Gauge gaps = registry.find("tablecast.outbox.gaps").gauge();
    if (gaps != null) {
      outbox.put("gaps", gaps.value()); // MySQL/MariaDB only
    }
    outbox.put("pruned", counter("tablecast.outbox.pruned"));
    outbox.put("rowsRead", counter("tablecast.tail.rows"));
    outbox.put("gapsExpired", counter("tablecast.gaps.expired"));
    ObjectNode tail = out.putObject("tail");
    tail.put("pollChanges", gauge("tablecast.tail.poll.changes"));
    tail.put("caughtUpAgeSeconds", gauge("tablecast.tail.caught.up.age"));
    ObjectNode reconcile = out.putObject("reconcile");
    reconcile.put("runs", counter("tablecast.reconcile.runs"));
    reconcile.put("repairs", counter("tablecast.reconcile.repairs"));
    reconcile.put("staleTriggers", counter("tablecast.reconcile.stale.triggers"));
    ObjectNode sessions = out.putObject("sessions");
    sessions.put("snapshotsServed", counter("tablecast.snapshots.served"));
    sessions.put("snapshotRows", counter("tablecast.snapshot.rows"));
    sessions.put("resumes", counter("tablecast.resumes"));
    sessions.put("slowConsumers", counter("tablecast.slow.consumers"));
    sessions.put("coalescedChanges", counter("tablecast.slow.coalesced.changes"));
    sessions.put("authFailures", counter("tablecast.auth.failures"));
    sessions.put("limitRefusals", counter("tablecast.limit.refusals"));
    ObjectNode problems = out.putObject("problems");
    problems.put("imageErrors", counter("tablecast.image.errors"));
    problems.put("rowsRefused", counter("tablecast.rows.refused"));
    problems.put("captureProblems", counter("tablecast.capture.problems"));
    problems.put("resyncs", counter("tablecast.resyncs"));
    problems.put("resyncRows", counter("tablecast.resync.rows"));
    problems.put("duplicateKeyRows", gaugeSum("tablecast.duplicate.keys"));
    ObjectNode byTable = out.putObject("byTable");
    perTable(byTable, "repairs", "tablecast.reconcile.repairs");
    perTable(byTable, "reconcileRuns", "tablecast.reconcile.runs");
    perTable(byTable, "resyncs", "tablecast.resyncs");
    perTable(byTable, "imageErrors", "tablecast.image.errors");
    perTable(byTable, "rowsRefused", "tablecast.rows.refused");
    perTable(byTable, "snapshotsServed", "tablecast.snapshots.served");
    return out;
  }

  /**
   * Capture-to-fan-out lag: count and sum since the start (a mean between two readings), the
   * largest and the percentiles of Micrometer's recent window, in ms.
   */
  private ObjectNode lag() {
    ObjectNode lag = NODES.objectNode();
    Timer timer = registry.find("tablecast.lag").timer();
    if (timer == null) {
      return lag;
    }
    HistogramSnapshot s = timer.takeSnapshot();
    lag.put("count", s.count());
    lag.put("totalMillis", s.total(TimeUnit.MILLISECONDS));
    lag.put("maxMillis", s.max(TimeUnit.MILLISECONDS));
    for (ValueAtPercentile p : s.percentileValues()) {
      long permille = Math.round(p.percentile() * 1000); // 0.5 -> p50, 0.99 -> p99, 0.999 -> p999
      String name = "p" + (permille % 10 == 0 ? permille / 10 : permille);
      lag.put(name + "Millis", p.value(TimeUnit.MILLISECONDS));
    }
    return lag;
  }

  private double counter(String name) {
    return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private double gauge(String name) {
    Gauge g = registry.find(name).gauge();
    return g == null ? 0 : g.value();
  }

  /** The sum of a per-table gauge over its tables. */
  private double gaugeSum(String name) {
    return registry.find(name).gauges().stream().mapToDouble(Gauge::value).sum();
  }

  /** Per table, the non-zero totals of a per-table counter under {@code field}. */
  private void perTable(ObjectNode byTable, String field, String name) {
    Map<String, Double> values = new TreeMap<>();
    for (Counter c : registry.find(name).counters()) {
      String table = c.getId().getTag("table");
      if (table != null && c.count() > 0) {
        values.merge(table, c.count(), Double::sum);
      }
    }
    values.forEach(
        (table, v) -> {
          ObjectNode t =
              byTable.has(table) ? (ObjectNode) byTable.get(table) : byTable.putObject(table);
          t.put(field, v);
        });
  }
}
