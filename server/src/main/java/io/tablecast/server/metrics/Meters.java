package io.tablecast.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;

/**
 * One registration per meter of {@link MicrometerServerMetrics} that is created on demand (per
 * table, per limit), shared by the eager registration at start ({@code tablesCached}) and the
 * recording, so both give the same meter with the same description.
 */
final class Meters {
  private final MeterRegistry registry;

  /**
   * The tail's meters, registered once: it counts every outbox read, and registering looks the
   * meter up by its id (name and tags compared) each time.
   */
  private final Counter tailRows;

  private final Counter tailReads;

  private final Timer tailReadTime;

  Meters(MeterRegistry registry) {
    this.registry = registry;
    this.tailRows =
        Counter.builder("tablecast.tail.rows")
            .description("outbox rows read by the tail")
            .register(registry);
    this.tailReads =
        Counter.builder("tablecast.tail.reads")
            .description("reads of the outbox by the tail, empty or not")
            .register(registry);
    this.tailReadTime =
        Timer.builder("tablecast.tail.read.time")
            .description("time of each read of the outbox by the tail, empty or not")
            .register(registry);
  }

  /** Registers every per-table counter and timer of {@code table}, at zero. */
  void registerTable(String table) {
    snapshotsServed(table);
    snapshotRows(table);
    snapshotTime(table);
    reconcileRepairs(table);
    staleTriggerReports(table);
    rowsRefused(table);
    imageErrors(table);
    resyncs(table);
    resyncRows(table);
    reconcileRuns(table);
  }

  /**
   * Registers, at zero, the limit refusals of every limit, the syncs of every outcome and the
   * outbox and tail counters: the meters not of one table that an alert rule or the dashboard
   * names.
   */
  void registerUntabled() {
    for (String limit :
        List.of(
            "max_connections",
            "max_subscriptions_per_connection",
            "idle_timeout",
            "allowed_origins")) {
      limitRefusals(limit);
    }
    for (String outcome : List.of("answered", "no_capture", "no_database", "too_many")) {
      syncs(outcome);
    }
    outboxPrunedCounter();
    tailRowsCounter();
    tailReadsCounter();
    coalescedCounter();
  }

  Counter perTable(String name, String description, String table) {
    return Counter.builder(name).description(description).tag("table", table).register(registry);
  }

  Counter snapshotsServed(String table) {
    return perTable("tablecast.snapshots.served", "snapshots sent to clients", table);
  }

  Counter snapshotRows(String table) {
    return perTable("tablecast.snapshot.rows", "rows sent in snapshots", table);
  }

  Timer snapshotTime(String table) {
    return Timer.builder("tablecast.snapshot.time")
        .description("time to write one table's snapshot")
        .tag("table", table)
        .register(registry);
  }

  Timer syncs(String outcome) {
    return Timer.builder("tablecast.syncs")
        .description("sync requests (read-your-writes), from the request to its answer")
        .tag("outcome", outcome)
        .register(registry);
  }

  Counter fetchKeys(String outcome) {
    return Counter.builder("tablecast.fetch.keys")
        .description("keys asked for by fetch requests (near caches)")
        .tag("outcome", outcome)
        .register(registry);
  }

  Counter reconcileRepairs(String table) {
    return perTable("tablecast.reconcile.repairs", "rows repaired by reconciliation", table);
  }

  Counter staleTriggerReports(String table) {
    return perTable(
        "tablecast.reconcile.stale.triggers",
        "altered tables found with stale capture triggers",
        table);
  }

  Counter rowsRefused(String table) {
    return perTable(
        "tablecast.rows.refused", "changed rows that could not be read, not delivered", table);
  }

  Counter imageErrors(String table) {
    return perTable("tablecast.image.errors", "events a table's image could not take", table);
  }

  Counter resyncs(String table) {
    return perTable("tablecast.resyncs", "tables re-read whole", table);
  }

  Counter resyncRows(String table) {
    return perTable("tablecast.resync.rows", "row differences published by re-reads", table);
  }

  Counter reconcileRuns(String table) {
    return perTable("tablecast.reconcile.runs", "table images compared with their table", table);
  }

  Counter limitRefusals(String limit) {
    return Counter.builder("tablecast.limit.refusals")
        .description("connections, subscriptions or sessions refused by a limit")
        .tag("limit", limit)
        .register(registry);
  }

  Counter captureProblems(String table, String kind) {
    return Counter.builder("tablecast.capture.problems")
        .description("incomplete capture found while serving")
        .tag("table", table)
        .tag("kind", kind)
        .register(registry);
  }

  Counter authFailures(String reason) {
    return Counter.builder("tablecast.auth.failures")
        .description("hellos refused with AUTHENTICATION_FAILED")
        .tag("reason", reason)
        .register(registry);
  }

  Counter outboxPrunedCounter() {
    return Counter.builder("tablecast.outbox.pruned")
        .description("outbox rows deleted after the retention")
        .register(registry);
  }

  Counter tailRowsCounter() {
    return tailRows;
  }

  Counter tailReadsCounter() {
    return tailReads;
  }

  Timer tailReadTime() {
    return tailReadTime;
  }

  Counter coalescedCounter() {
    return Counter.builder("tablecast.slow.coalesced.changes")
        .description("changes folded into a slow session's pending image")
        .register(registry);
  }
}
