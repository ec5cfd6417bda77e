package io.tablecast.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@link ServerMetrics} of a running server, registered in one Micrometer registry (a
 * Prometheus registry for {@code GET /metrics}, or an in-memory one), with the queries tests and
 * health output read back. The names are stable; their Prometheus forms, types and meanings are the
 * table of {@code docs/PROTOCOL.md} (HTTP endpoints), and the dashboard and alert rules under
 * {@code ops/} use them ({@code OpsFilesTest}). Thread-safe.
 */
public final class MicrometerServerMetrics implements ServerMetrics {

  private final MeterRegistry registry;
  private final Meters meters;
  private final TableGauges tableGauges;
  private final FixedMeters fixed;
  private final CaptureLag captureLag;

  /** Meters registered in {@code registry}. */
  public MicrometerServerMetrics(MeterRegistry registry) {
    this(registry, System::currentTimeMillis);
  }

  /** Meters registered in {@code registry}; the capture lag read against {@code clockMillis}. */
  MicrometerServerMetrics(MeterRegistry registry, LongSupplier clockMillis) {
    this.registry = registry;
    this.captureLag = new CaptureLag(clockMillis);
    this.meters = new Meters(registry);
    this.tableGauges = new TableGauges(registry);
    this.fixed = new FixedMeters(registry);
  }

  /**
   * Metrics into a Prometheus registry, the one {@code GET /metrics} renders ({@code
   * TablecastServer.start(ServerConfig)} uses it).
   */
  public static MicrometerServerMetrics prometheus() {
    return new MicrometerServerMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  /**
   * The meters in the Prometheus text exposition format (version 0.0.4), or null when the registry
   * is not a Prometheus registry (e.g. {@link #inMemory()}).
   */
  @Override
  public String prometheusText() {
    if (registry instanceof PrometheusMeterRegistry p) {
      return p.scrape();
    }
    return null;
  }

  /**
   * Registers the tail loop's gauges: {@code tablecast.tail.poll.changes} (row events of the last
   * poll; polls return at most one read's worth, so a steadily high value means a backlog) and
   * {@code tablecast.tail.caught.up.age} (seconds since the last successful poll began: a poll
   * reads all the outbox holds, so the loop had every change committed before then; grows while one
   * poll works through a backlog or while polls fail).
   */
  @Override
  public void tailGauges(Supplier<Number> lastPollChanges, Supplier<Number> caughtUpAgeSeconds) {
    Gauge.builder("tablecast.tail.poll.changes", lastPollChanges)
        .description("row events returned by the last outbox poll")
        .register(registry);
    Gauge.builder("tablecast.tail.caught.up.age", caughtUpAgeSeconds)
        .description("seconds since the tail last read all the outbox held")
        .baseUnit("seconds")
        .register(registry);
  }

  /**
   * {@code tablecast.tls.certificate.expiry}: when the certificate the port serves ends, in seconds
   * since the epoch, as {@code probe_ssl_earliest_cert_expiry} is (alert on it minus {@code
   * time()}); it follows a renewal read while serving.
   */
  @Override
  public void tlsCertificateGauge(Supplier<Number> notAfterEpochSeconds) {
    Gauge.builder("tablecast.tls.certificate.expiry", notAfterEpochSeconds)
        .description("when the TLS certificate the port serves ends, seconds since the epoch")
        .baseUnit("seconds")
        .register(registry);
  }

  /** Metrics into a private in-memory registry (tests, embedded use). */
  public static MicrometerServerMetrics inMemory() {
    return new MicrometerServerMetrics(new SimpleMeterRegistry());
  }

  /** The registry the meters are in. */
  public MeterRegistry registry() {
    return registry;
  }

  @Override
  public void clientConnected() {
    fixed.clients.incrementAndGet();
  }

  @Override
  public void clientDisconnected() {
    fixed.clients.decrementAndGet();
  }

  /**
   * Per-table counters (and the stale gauge) at zero for every cached table, and the other counters
   * and the limit refusals by limit, so that every series an alert rule or the dashboard under
   * {@code ops/} names is there from the start.
   */
  @Override
  public void tablesCached(Collection<String> tables) {
    for (String table : tables) {
      meters.registerTable(table);
      captureLag.register(registry, table);
      tableStale(table, false);
      duplicateKeyRows(table, 0);
    }
    meters.registerUntabled();
  }

  /** Connected sessions (past their hello), binary and WebSocket. */
  public int clients() {
    return fixed.clients.get();
  }

  /** A batch of {@code changeCount} changes was fanned out; {@code captureMillis} 0 = unknown. */
  @Override
  public void batchPublished(int changeCount, long captureMillis) {
    fixed.batches.increment();
    fixed.changes.increment(changeCount);
    if (captureMillis > 0) {
      fixed.lag.record(
          Math.max(0, System.currentTimeMillis() - captureMillis), TimeUnit.MILLISECONDS);
    }
  }

  /** {@code tablecast.capture.lag{table}} (see {@link CaptureLag}). */
  @Override
  public void tablesPublished(Collection<String> tables, long captureMillis) {
    for (String t : tables) {
      captureLag.published(t, captureMillis);
    }
  }

  @Override
  public void snapshotServed(String table, int rows, Duration took) {
    meters.snapshotsServed(table).increment();
    meters.snapshotRows(table).increment(rows);
    meters.snapshotTime(table).record(took);
  }

  @Override
  public void syncAnswered(String outcome, Duration took) {
    meters.syncs(outcome).record(took);
  }

  @Override
  public void fetched(String outcome, int keys) {
    meters.fetchKeys(outcome).increment(keys);
  }

  @Override
  public void resumed() {
    fixed.resumes.increment();
  }

  @Override
  public void resumedFromStream() {
    fixed.streamResumes.increment();
  }

  @Override
  public void slowConsumerClosed() {
    fixed.slowConsumers.increment();
  }

  @Override
  public void gapsExpired(int count) {
    fixed.gapsExpired.increment(count);
  }

  @Override
  public void reconcileRepaired(String table, int rows) {
    meters.reconcileRepairs(table).increment(rows);
  }

  /**
   * Reconciliation found a table altered while its capture triggers stayed stale (not reinstalled).
   */
  @Override
  public void reconcileStaleTriggers(String table) {
    meters.staleTriggerReports(table).increment();
  }

  /**
   * The capture of cached table {@code table} was found incomplete while serving ({@code
   * tablecast.capture.problems}): {@code kind} {@code missing_trigger} (its own trigger, on
   * PostgreSQL one of a partition or child, on MySQL/MariaDB a parent's key-recording trigger for a
   * foreign-key action into it, is missing), {@code not_capturable} (a foreign-key action no
   * trigger can capture), and on PostgreSQL {@code disabled}, {@code not_always} (enabled for
   * origin or replica sessions only), {@code stray} (left on a relation that left the table),
   * {@code uncapturable} (a foreign table joined it, or the table was dropped).
   */
  @Override
  public void captureProblem(String table, String kind) {
    meters.captureProblems(table, kind).increment();
  }

  /**
   * A changed row of {@code table} could not be read and its change was not delivered ({@code
   * tablecast.rows.refused}): on MySQL/MariaDB its JSON form is larger than {@code
   * max_allowed_packet}. The table's mirrors keep the row as it was until it changes again.
   */
  @Override
  public void rowRefused(String table) {
    meters.rowsRefused(table).increment();
  }

  /**
   * {@code tablecast.table.stale{table}}: 1 while the server knows the mirrors of {@code table} may
   * differ from it (the log says why; clients hear it as {@code table_status}), 0 while they follow
   * it (every cached table from the start, see {@link #tablesCached}).
   */
  @Override
  public void tableStale(String table, boolean stale) {
    tableGauges.stale(table, stale);
  }

  /**
   * {@code tablecast.duplicate.keys{table}}: the rows the last whole read of {@code table} found
   * beyond one per primary key, which its mirrors cannot hold (0 for every cached table from the
   * start).
   */
  @Override
  public void duplicateKeyRows(String table, long rows) {
    tableGauges.duplicateKeyRows(table, rows);
  }

  /** Rows beyond one per key found by the last whole reads, all tables. */
  public long duplicateKeyRows() {
    return tableGauges.duplicateKeyRows();
  }

  /**
   * An event of {@code table} could not be applied to its image ({@code tablecast.image.errors}):
   * the image is invalid and the table stale until the table is re-read.
   */
  @Override
  public void imageError(String table) {
    meters.imageErrors(table).increment();
  }

  /** Events the images could not take, all tables. */
  public double imageErrors() {
    return total("tablecast.image.errors");
  }

  /** Incomplete capture found while serving, all tables and kinds. */
  public double captureProblems() {
    return total("tablecast.capture.problems");
  }

  /**
   * A table was re-read because the capture reported a change rows cannot describe (a partition or
   * child table truncated, attached, detached): {@code tablecast.resyncs} counts the reads, {@code
   * tablecast.resync.rows} the row differences they published. Not a repair.
   */
  @Override
  public void resynced(String table, int rows) {
    meters.resyncs(table).increment();
    meters.resyncRows(table).increment(rows);
  }

  /** Table resyncs, all tables (tests). */
  public double resyncs() {
    return total("tablecast.resyncs");
  }

  /** A table image was compared with the table (reconciliation ran). */
  @Override
  public void reconciled(String table) {
    meters.reconcileRuns(table).increment();
  }

  /** Reconciliations run, all tables. */
  public double reconciliations() {
    return total("tablecast.reconcile.runs");
  }

  /** Changes folded into a slow consumer's coalescer instead of being queued. */
  @Override
  public void coalesced(int changes) {
    meters.coalescedCounter().increment(changes);
  }

  /**
   * A connection, subscription or session refused or closed by a limit ({@code limit} = its config
   * key).
   */
  @Override
  public void limitRefused(String limit) {
    meters.limitRefusals(limit).increment();
  }

  /** Refusals by {@code limit} (a config key). */
  public double limitRefusals(String limit) {
    Counter c = registry.find("tablecast.limit.refusals").tag("limit", limit).counter();
    return c == null ? 0 : c.count();
  }

  /**
   * A hello was refused with AUTHENTICATION_FAILED ({@code tablecast.auth.failures}, tag {@code
   * reason}: missing_credentials, bad_credentials, bad_token, expired_token, unresolved_claim,
   * ...).
   */
  @Override
  public void authFailed(String reason) {
    meters.authFailures(reason).increment();
  }

  /** Authentication failures with {@code reason}, or all when null. */
  public double authFailures(String reason) {
    var search = registry.find("tablecast.auth.failures");
    if (reason != null) {
      search = search.tag("reason", reason);
    }
    return search.counters().stream().mapToDouble(Counter::count).sum();
  }

  /** Rows repaired by reconciliation, all tables (for tests and health output). */
  public double reconcileRepairs() {
    return total("tablecast.reconcile.repairs");
  }

  /** Stale-trigger reports of reconciliation, all tables. */
  public double reconcileStaleTriggerReports() {
    return total("tablecast.reconcile.stale.triggers");
  }

  /** Total snapshots served, all tables (for tests and health output). */
  public double snapshotsServed() {
    return total("tablecast.snapshots.served");
  }

  public double resumesServed() {
    return fixed.resumes.count();
  }

  /** Subscriptions replayed from the stream ({@link #resumedFromStream}). */
  public double resumesFromStream() {
    return fixed.streamResumes.count();
  }

  /** Committed outbox rows not read by the tail yet, as last sampled. */
  @Override
  public void outboxBacklog(long rows) {
    fixed.outboxBacklog.set(rows);
  }

  public long outboxBacklog() {
    return fixed.outboxBacklog.get();
  }

  /** Outbox rows deleted by pruning. */
  @Override
  public void outboxPruned(int rows) {
    meters.outboxPrunedCounter().increment(rows);
  }

  /** Registers the gauge of unresolved MySQL/MariaDB outbox gaps. */
  @Override
  public void outboxGapsGauge(Supplier<Number> openGaps) {
    Gauge.builder("tablecast.outbox.gaps", openGaps)
        .description("skipped outbox ids or id ranges not resolved yet")
        .register(registry);
  }

  /** Outbox ids dropped on lock probes, without innodb_trx. */
  public double gapsExpired() {
    return fixed.gapsExpired.count();
  }

  /**
   * Outbox rows (captured row changes) the tail read ({@code tablecast.tail.rows}). On
   * MySQL/MariaDB several changes of one row read at once become one change, so this can exceed
   * {@code tablecast.changes}.
   */
  @Override
  public void outboxRowsRead(int rows) {
    meters.tailRowsCounter().increment(rows);
  }

  /**
   * One read of the outbox ({@code tablecast.tail.reads}), whether it found rows or not, and its
   * time ({@code tablecast.tail.read.time}).
   */
  @Override
  public void outboxRead(long nanos) {
    meters.tailReadsCounter().increment();
    meters.tailReadTime().record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The sum of the counters named {@code name}, all tags. */
  private double total(String name) {
    return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }
}
