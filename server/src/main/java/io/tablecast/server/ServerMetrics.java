package io.tablecast.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's meters, registered in one Micrometer registry. Names (Prometheus form in
 * brackets) are stable and listed in {@code docs/PROTOCOL.md} (HTTP endpoints):
 * <ul>
 *   <li>{@code tablecast.clients} [tablecast_clients]: connected sessions (gauge)
 *   <li>{@code tablecast.batches} / {@code tablecast.changes}: batches and row changes fanned out
 *   <li>{@code tablecast.lag}: from the change's capture in the outbox to its fan-out (timer)
 *   <li>{@code tablecast.snapshots.served}, {@code tablecast.snapshot.rows}: snapshots sent to clients
 *   <li>{@code tablecast.resumes}: subscriptions served from the resume buffer, without a snapshot
 *   <li>{@code tablecast.slow.consumers}: sessions closed because they did not read
 *   <li>{@code tablecast.gaps.expired}: MySQL/MariaDB outbox ids dropped as rolled back on lock
 *       probes, not on {@code innodb_trx} (only without the PROCESS privilege)
 *   <li>{@code tablecast.outbox.gaps}: MySQL/MariaDB skipped outbox ids (or id ranges) not resolved yet
 *   <li>{@code tablecast.outbox.backlog}: committed outbox rows the tail has not read yet (sampled)
 *   <li>{@code tablecast.outbox.pruned}: outbox rows deleted after the retention
 *   <li>{@code tablecast.tail.rows}: outbox rows (captured row changes) the tail has read
 *   <li>{@code tablecast.reconcile.repairs}: rows repaired by reconciliation (drift the triggers missed)
 *   <li>{@code tablecast.reconcile.runs}: table images compared with their table
 *   <li>{@code tablecast.resyncs} / {@code tablecast.resync.rows}: tables re-read because the capture
 *       reported a change rows cannot describe (a partition truncated, attached or detached), and the
 *       row differences published; expected work, not repairs
 *   <li>{@code tablecast.auth.failures}: hellos refused with AUTHENTICATION_FAILED, tag {@code reason}
 *   <li>{@code tablecast.reconcile.stale.triggers}: altered tables found with stale capture triggers
 *   <li>{@code tablecast.capture.problems}: incomplete capture of a cached table found while serving
 *   <li>{@code tablecast.rows.refused}: changed rows that could not be read (larger than
 *       {@code max_allowed_packet} as JSON), whose change was not delivered
 *   <li>{@code tablecast.table.stale}: 1 per cached table whose mirrors may differ from it (gauge)
 *       (tags {@code table}, {@code kind}: {@code missing_trigger}, {@code not_capturable}; PostgreSQL
 *       also {@code disabled}, {@code not_always}, {@code stray}, {@code uncapturable}), once per problem
 * </ul>
 * Thread-safe.
 */
public final class ServerMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger clients = new AtomicInteger();
  private final java.util.Map<String, AtomicInteger> staleTables = new java.util.concurrent.ConcurrentHashMap<>();
  private final Counter batches;
  private final Counter changes;
  private final Timer lag;
  private final Counter resumes;
  private final Counter slowConsumers;
  private final Counter gapsExpired;
  private final java.util.concurrent.atomic.AtomicLong outboxBacklog = new java.util.concurrent.atomic.AtomicLong();

  public ServerMetrics(MeterRegistry registry) {
    this.registry = registry;
    registry.gauge("tablecast.clients", clients);
    batches = Counter.builder("tablecast.batches").description("change batches fanned out").register(registry);
    changes = Counter.builder("tablecast.changes").description("row changes fanned out").register(registry);
    lag = Timer.builder("tablecast.lag").description("outbox capture to fan-out")
        .publishPercentiles(0.5, 0.99, 0.999).register(registry);
    resumes = Counter.builder("tablecast.resumes").description("subscriptions resumed without a snapshot")
        .register(registry);
    slowConsumers = Counter.builder("tablecast.slow.consumers").description("sessions closed for not reading")
        .register(registry);
    gapsExpired = Counter.builder("tablecast.gaps.expired")
        .description("outbox ids dropped as rolled back on lock probes (no PROCESS privilege)").register(registry);
    registry.gauge("tablecast.outbox.backlog", outboxBacklog);
  }

  /**
   * Metrics into a Prometheus registry, the one {@code GET /metrics} renders
   * ({@link TablecastServer#start(ServerConfig)} uses it).
   */
  public static ServerMetrics prometheus() {
    return new ServerMetrics(new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT));
  }

  /**
   * The meters in the Prometheus text exposition format (version 0.0.4), or null when the
   * registry is not a Prometheus registry (e.g. {@link #inMemory()}).
   */
  public String prometheusText() {
    if (registry instanceof io.micrometer.prometheusmetrics.PrometheusMeterRegistry p) {
      return p.scrape();
    }
    return null;
  }

  /**
   * Registers the tail loop's gauges: {@code tablecast.tail.poll.changes} (row events of the last
   * poll; polls return at most one read's worth, so a steadily high value means a backlog) and
   * {@code tablecast.tail.caught.up.age} (seconds since a poll last came back empty, i.e. since
   * the loop last had nothing left to read in the outbox; grows while it works through a backlog
   * or while polls fail).
   */
  public void tailGauges(java.util.function.Supplier<Number> lastPollChanges,
      java.util.function.Supplier<Number> caughtUpAgeSeconds) {
    io.micrometer.core.instrument.Gauge.builder("tablecast.tail.poll.changes", lastPollChanges)
        .description("row events returned by the last outbox poll").register(registry);
    io.micrometer.core.instrument.Gauge.builder("tablecast.tail.caught.up.age", caughtUpAgeSeconds)
        .description("seconds since an outbox poll last found nothing more to read").baseUnit("seconds")
        .register(registry);
  }

  /** Metrics into a private in-memory registry (tests, embedded use). */
  public static ServerMetrics inMemory() {
    return new ServerMetrics(new SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void clientConnected() {
    clients.incrementAndGet();
  }

  public void clientDisconnected() {
    clients.decrementAndGet();
  }

  /** Connected sessions (past their hello), binary and WebSocket. */
  public int clients() {
    return clients.get();
  }

  /** A batch of {@code changeCount} changes was fanned out; {@code captureMillis} 0 = unknown. */
  public void batchPublished(int changeCount, long captureMillis) {
    batches.increment();
    changes.increment(changeCount);
    if (captureMillis > 0) {
      lag.record(Math.max(0, System.currentTimeMillis() - captureMillis), TimeUnit.MILLISECONDS);
    }
  }

  public void snapshotServed(String table, int rows, Duration took) {
    Counter.builder("tablecast.snapshots.served").tag("table", table).register(registry).increment();
    Counter.builder("tablecast.snapshot.rows").tag("table", table).register(registry).increment(rows);
    Timer.builder("tablecast.snapshot.time").tag("table", table).register(registry).record(took);
  }

  public void resumed() {
    resumes.increment();
  }

  public void slowConsumerClosed() {
    slowConsumers.increment();
  }

  public void gapsExpired(int count) {
    gapsExpired.increment(count);
  }

  public void reconcileRepaired(String table, int rows) {
    Counter.builder("tablecast.reconcile.repairs").tag("table", table).register(registry).increment(rows);
  }

  /** Reconciliation found a table altered while its capture triggers stayed stale (not reinstalled). */
  public void reconcileStaleTriggers(String table) {
    Counter.builder("tablecast.reconcile.stale.triggers").tag("table", table).register(registry).increment();
  }

  /**
   * The capture of cached table {@code table} was found incomplete while serving
   * ({@code tablecast.capture.problems}): {@code kind} {@code missing_trigger} (its own trigger,
   * on PostgreSQL one of a partition or child, on MySQL/MariaDB a parent's key-recording trigger
   * for a foreign-key action into it, is missing), {@code not_capturable} (a foreign-key action no
   * trigger can capture), and on PostgreSQL {@code disabled}, {@code not_always} (enabled for
   * origin or replica sessions only), {@code stray} (left on a relation that left the table),
   * {@code uncapturable} (a foreign table joined it, or the table was dropped).
   */
  public void captureProblem(String table, String kind) {
    Counter.builder("tablecast.capture.problems").description("incomplete capture found while serving")
        .tag("table", table).tag("kind", kind).register(registry).increment();
  }

  /**
   * A changed row of {@code table} could not be read and its change was not delivered
   * ({@code tablecast.rows.refused}): on MySQL/MariaDB its JSON form is larger than
   * {@code max_allowed_packet}. The table's mirrors keep the row as it was until it changes again.
   */
  public void rowRefused(String table) {
    Counter.builder("tablecast.rows.refused").description("changed rows that could not be read, not delivered")
        .tag("table", table).register(registry).increment();
  }

  /**
   * {@code tablecast.table.stale{table}}: 1 while the server knows the mirrors of {@code table} may
   * differ from it (the log says why; clients hear it as {@code table_status}), 0 once they
   * follow it again. A table appears from its first stale moment on.
   */
  public void tableStale(String table, boolean stale) {
    staleTables.computeIfAbsent(table, t -> registry.gauge("tablecast.table.stale",
        io.micrometer.core.instrument.Tags.of("table", t), new AtomicInteger()))
        .set(stale ? 1 : 0);
  }

  /** Incomplete capture found while serving, all tables and kinds. */
  public double captureProblems() {
    return registry.find("tablecast.capture.problems").counters().stream().mapToDouble(Counter::count).sum();
  }

  /**
   * A table was re-read because the capture reported a change rows cannot describe (a partition
   * or child table truncated, attached, detached): {@code tablecast.resyncs} counts the reads,
   * {@code tablecast.resync.rows} the row differences they published. Not a repair.
   */
  public void resynced(String table, int rows) {
    Counter.builder("tablecast.resyncs").tag("table", table).register(registry).increment();
    Counter.builder("tablecast.resync.rows").tag("table", table).register(registry).increment(rows);
  }

  /** Table resyncs, all tables (tests). */
  public double resyncs() {
    return registry.find("tablecast.resyncs").counters().stream().mapToDouble(Counter::count).sum();
  }

  /** A table image was compared with the table (reconciliation ran). */
  public void reconciled(String table) {
    Counter.builder("tablecast.reconcile.runs").tag("table", table).register(registry).increment();
  }

  /** Reconciliations run, all tables. */
  public double reconciliations() {
    return registry.find("tablecast.reconcile.runs").counters().stream().mapToDouble(Counter::count).sum();
  }

  /** Changes folded into a slow consumer's coalescer instead of being queued. */
  public void coalesced(int changes) {
    Counter.builder("tablecast.slow.coalesced.changes").register(registry).increment(changes);
  }

  /** A connection, subscription or session refused or closed by a limit ({@code limit} = its config key). */
  public void limitRefused(String limit) {
    Counter.builder("tablecast.limit.refusals").tag("limit", limit).register(registry).increment();
  }

  /** Refusals by {@code limit} (a config key). */
  public double limitRefusals(String limit) {
    Counter c = registry.find("tablecast.limit.refusals").tag("limit", limit).counter();
    return c == null ? 0 : c.count();
  }

  /**
   * A hello was refused with AUTHENTICATION_FAILED ({@code tablecast.auth.failures}, tag
   * {@code reason}: missing_credentials, bad_credentials, bad_token, expired_token, unresolved_claim, ...).
   */
  public void authFailed(String reason) {
    Counter.builder("tablecast.auth.failures").description("hellos refused with AUTHENTICATION_FAILED")
        .tag("reason", reason).register(registry).increment();
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
    return registry.find("tablecast.reconcile.repairs").counters().stream().mapToDouble(Counter::count).sum();
  }

  /** Stale-trigger reports of reconciliation, all tables. */
  public double reconcileStaleTriggerReports() {
    return registry.find("tablecast.reconcile.stale.triggers").counters().stream().mapToDouble(Counter::count)
        .sum();
  }

  /** Total snapshots served, all tables (for tests and health output). */
  public double snapshotsServed() {
    return registry.find("tablecast.snapshots.served").counters().stream().mapToDouble(Counter::count).sum();
  }

  public double resumesServed() {
    return resumes.count();
  }

  /** Committed outbox rows not read by the tail yet, as last sampled. */
  public void outboxBacklog(long rows) {
    outboxBacklog.set(rows);
  }

  public long outboxBacklog() {
    return outboxBacklog.get();
  }

  /** Outbox rows deleted by pruning. */
  public void outboxPruned(int rows) {
    Counter.builder("tablecast.outbox.pruned").description("outbox rows deleted after the retention")
        .register(registry).increment(rows);
  }

  /** Registers the gauge of unresolved MySQL/MariaDB outbox gaps. */
  public void outboxGapsGauge(java.util.function.Supplier<Number> openGaps) {
    io.micrometer.core.instrument.Gauge.builder("tablecast.outbox.gaps", openGaps)
        .description("skipped outbox ids or id ranges not resolved yet").register(registry);
  }

  /** Outbox ids dropped on lock probes, without innodb_trx. */
  public double gapsExpired() {
    return gapsExpired.count();
  }

  /**
   * Outbox rows (captured row changes) the tail read ({@code tablecast.tail.rows}). On MySQL/MariaDB
   * several changes of one row read at once become one change, so this can exceed {@code tablecast.changes}.
   */
  public void outboxRowsRead(int rows) {
    Counter.builder("tablecast.tail.rows").description("outbox rows read by the tail").register(registry)
        .increment(rows);
  }
}
