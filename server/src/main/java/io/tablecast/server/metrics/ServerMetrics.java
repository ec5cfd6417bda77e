package io.tablecast.server.metrics;

import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * What the server's stages record: every method is a no-op unless an implementation overrides it
 * (the model is HikariCP's {@code IMetricsTracker}), so a stage, a test or an embedder that wants
 * no meters passes {@link #NOOP}. {@link MicrometerServerMetrics} records into a Micrometer
 * registry; the meters' names are listed there and in {@code docs/PROTOCOL.md} (HTTP endpoints).
 * Implementations must be thread-safe: every stage calls them from its own threads.
 */
public interface ServerMetrics {

  /** Records nothing. */
  ServerMetrics NOOP = new ServerMetrics() {};

  /** A session completed its hello. */
  default void clientConnected() {}

  /**
   * The server caches {@code tables}: their per-table series start at zero now, so that an alert on
   * {@code increase(...)} sees the first repair or refusal of a table (Prometheus cannot tell the
   * rise of a series that appears at 1).
   */
  default void tablesCached(Collection<String> tables) {}

  /** A session that had completed its hello closed. */
  default void clientDisconnected() {}

  /** A batch of {@code changeCount} changes was fanned out; {@code captureMillis} 0 = unknown. */
  default void batchPublished(int changeCount, long captureMillis) {}

  /**
   * A batch with changes of {@code tables}, captured at {@code captureMillis} (wall clock, never
   * 0), was fanned out.
   */
  default void tablesPublished(Collection<String> tables, long captureMillis) {}

  /** A snapshot of {@code rows} rows of {@code table} was written to a session in {@code took}. */
  default void snapshotServed(String table, int rows, Duration took) {}

  /**
   * A session's {@code sync} request (read-your-writes) was answered, {@code took} after it came;
   * {@code outcome}: {@code answered}, {@code no_capture} (a server that serves from a NATS stream,
   * whose capture leader did not answer), {@code no_database} (a server without a source yet),
   * {@code too_many} (the session had the most requests open).
   */
  default void syncAnswered(String outcome, Duration took) {}

  /**
   * A session's {@code fetch} request (near cache) for {@code keys} keys was answered ({@code
   * outcome} {@code answered}) or refused ({@code refused}: a table not subscribed, too many keys,
   * a key that is none of the table's).
   */
  default void fetched(String outcome, int keys) {}

  /** A subscription was served from the resume buffer, without a snapshot. */
  default void resumed() {}

  /**
   * A subscription older than the resume buffer was replayed from the stream (NATS), without a
   * snapshot.
   */
  default void resumedFromStream() {}

  /** A session was closed because it did not read fast enough. */
  default void slowConsumerClosed() {}

  /** MySQL/MariaDB outbox ids dropped as rolled back on lock probes (no PROCESS privilege). */
  default void gapsExpired(int count) {}

  /**
   * Reconciliation repaired {@code rows} rows of {@code table} (drift the triggers did not
   * capture).
   */
  default void reconcileRepaired(String table, int rows) {}

  /** Reconciliation found {@code table} altered while its capture triggers stayed stale. */
  default void reconcileStaleTriggers(String table) {}

  /**
   * The capture of cached table {@code table} was found incomplete while serving; {@code kind}
   * names how (see {@link MicrometerServerMetrics#captureProblem}).
   */
  default void captureProblem(String table, String kind) {}

  /** A changed row of {@code table} could not be read and its change was not delivered. */
  default void rowRefused(String table) {}

  /** {@code table}'s mirrors may differ from it ({@code stale}), or follow it again. */
  default void tableStale(String table, boolean stale) {}

  /**
   * An event of {@code table} could not be applied to the table's image: the image is invalid until
   * the table is re-read.
   */
  default void imageError(String table) {}

  /**
   * A whole read of {@code table} (snapshot, re-read, reconciliation pass) found {@code rows} rows
   * beyond one per primary key, which its mirrors cannot hold (0: none).
   */
  default void duplicateKeyRows(String table, long rows) {}

  /** {@code table} was re-read whole (a resync) and {@code rows} row differences were published. */
  default void resynced(String table, int rows) {}

  /** {@code table}'s image was compared whole with the table (a reconciliation pass completed). */
  default void reconciled(String table) {}

  /** Changes folded into a slow consumer's coalescer instead of being queued. */
  default void coalesced(int changes) {}

  /**
   * A connection, subscription or session refused or closed by a limit ({@code limit} = its config
   * key).
   */
  default void limitRefused(String limit) {}

  /** A hello was refused with AUTHENTICATION_FAILED for {@code reason}. */
  default void authFailed(String reason) {}

  /** Committed outbox rows not read by the tail yet, as last sampled. */
  default void outboxBacklog(long rows) {}

  /** Outbox rows deleted by pruning. */
  default void outboxPruned(int rows) {}

  /** Outbox rows (captured row changes) the tail read. */
  default void outboxRowsRead(int rows) {}

  /**
   * The tail read the outbox once (one poll query, which found rows or not: what the poll schedule
   * costs the database), in {@code nanos}.
   */
  default void outboxRead(long nanos) {}

  /** Registers the gauge of unresolved MySQL/MariaDB outbox gaps. */
  default void outboxGapsGauge(Supplier<Number> openGaps) {}

  /**
   * Registers the tail loop's gauges: row events of the last poll, and seconds since a poll last
   * found nothing more to read.
   */
  default void tailGauges(Supplier<Number> lastPollChanges, Supplier<Number> caughtUpAgeSeconds) {}

  /** When the TLS certificate the port serves ends (seconds since the epoch), as it is renewed. */
  default void tlsCertificateGauge(Supplier<Number> notAfterEpochSeconds) {}

  /**
   * The meters in the Prometheus text exposition format (version 0.0.4), rendered by {@code GET
   * /metrics}; null when this implementation exposes none (then {@code /metrics} answers 503).
   */
  default String prometheusText() {
    return null;
  }
}
