package io.tablecast.server.capture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where the cached tables live and how changes are captured from them.
 *
 * @param jdbcUrl {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code jdbc:postgresql://...};
 *     the URL's database (MySQL) or current schema (PostgreSQL) holds the outbox
 * @param user database user, or null when the URL carries it
 * @param password database password, or null
 * @param cachedTables tables to cache, {@code table} or {@code schema.table}
 * @param installTriggers whether the server installs (idempotently) the outbox and triggers at start
 * @param outboxRetention delivered outbox rows older than this are pruned
 * @param maxPollInterval the longest pause between outbox polls when idle (polls back off from
 *     1 ms to this; a poll that finds rows is followed by another at once)
 * @param reconcileInterval every this long, one cached table (round-robin) is compared with its
 *     in-memory image in the same consistent read as an outbox poll, and any drift the triggers
 *     did not capture (MySQL/MariaDB TRUNCATE, ALTER TABLE, disabled triggers) is repaired by
 *     publishing the differences; {@link Duration#ZERO} disables it
 * @param captureCheckInterval every this long the server reads from the catalog whether every capture
 *     trigger the cached tables need is present (and, on PostgreSQL, enabled ALWAYS), which
 *     partitions and inheritance children make up each table (PostgreSQL), and which parents'
 *     key-recording triggers foreign-key actions into them need (MySQL/MariaDB, including foreign
 *     keys added since start); a new member or missing trigger is logged, counted, installed
 *     (with {@code installTriggers}) and its table re-read; null = the family's default,
 *     {@link Duration#ZERO} disables it
 * @param columnChoices the columns to cache of some of {@code cachedTables}, by their name as
 *     written there ({@code cached_tables} entries with {@code columns} or
 *     {@code exclude_columns}); the others are cached whole
 */
public record SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
    boolean installTriggers, Duration outboxRetention, Duration maxPollInterval, Duration reconcileInterval,
    Duration captureCheckInterval, Map<String, ColumnChoice> columnChoices) {

  /** Default for {@link #outboxRetention()}: one hour. */
  public static final Duration DEFAULT_OUTBOX_RETENTION = Duration.ofHours(1);
  /** Default for {@link #maxPollInterval()}: 10 ms. */
  public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMillis(10);
  /** Default for {@link #reconcileInterval()}: 30 s. */
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(30);
  /**
   * Default for {@link #captureCheckInterval()} on PostgreSQL: 1 s (one check reads a few indexes
   * of pg_catalog: 0.4 ms for 10 tables, about 20 µs per partition or child, docs/CONFIGURATION.md).
   */
  public static final Duration DEFAULT_PG_CAPTURE_CHECK_INTERVAL = Duration.ofSeconds(1);
  /**
   * Default for {@link #captureCheckInterval()} on MySQL/MariaDB: 10 s (one check reads
   * information_schema: about 100 ms for 16 tables, docs/CONFIGURATION.md).
   */
  public static final Duration DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL = Duration.ofSeconds(10);

  /** Every table cached whole. */
  public SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
      boolean installTriggers, Duration outboxRetention, Duration maxPollInterval, Duration reconcileInterval,
      Duration captureCheckInterval) {
    this(jdbcUrl, user, password, cachedTables, installTriggers, outboxRetention, maxPollInterval, reconcileInterval,
        captureCheckInterval, Map.of());
  }

  /** Without {@code captureCheckInterval}: the default interval. */
  public SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
      boolean installTriggers, Duration outboxRetention, Duration maxPollInterval, Duration reconcileInterval) {
    this(jdbcUrl, user, password, cachedTables, installTriggers, outboxRetention, maxPollInterval, reconcileInterval,
        null);
  }

  /** Without {@code reconcileInterval}: the default interval. */
  public SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
      boolean installTriggers, Duration outboxRetention, Duration maxPollInterval) {
    this(jdbcUrl, user, password, cachedTables, installTriggers, outboxRetention, maxPollInterval, null, null);
  }

  public SourceConfig {
    Objects.requireNonNull(jdbcUrl, "source.jdbc_url must be set");
    if (!jdbcUrl.startsWith("jdbc:mariadb:") && !jdbcUrl.startsWith("jdbc:mysql:")
        && !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("source.jdbc_url must start with jdbc:mariadb:, jdbc:mysql: or "
          + "jdbc:postgresql:, was '" + jdbcUrl + "'");
    }
    cachedTables = List.copyOf(Objects.requireNonNull(cachedTables, "cached_tables must be set"));
    columnChoices = Map.copyOf(columnChoices == null ? Map.of() : columnChoices);
    for (String t : columnChoices.keySet()) {
      if (!cachedTables.contains(t)) {
        throw new IllegalArgumentException("a column choice names table " + t + ", which is not in cached_tables "
            + cachedTables);
      }
    }
    if (cachedTables.isEmpty()) {
      throw new IllegalArgumentException("cached_tables must name at least one table");
    }
    outboxRetention = outboxRetention == null ? DEFAULT_OUTBOX_RETENTION : outboxRetention;
    maxPollInterval = maxPollInterval == null ? DEFAULT_MAX_POLL_INTERVAL : maxPollInterval;
    reconcileInterval = reconcileInterval == null ? DEFAULT_RECONCILE_INTERVAL : reconcileInterval;
    if (reconcileInterval.isNegative()) {
      throw new IllegalArgumentException("reconcile_interval must be positive or 0 (disabled), was "
          + reconcileInterval);
    }
    if (captureCheckInterval == null) {
      captureCheckInterval = jdbcUrl.startsWith("jdbc:postgresql:") ? DEFAULT_PG_CAPTURE_CHECK_INTERVAL
          : DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL;
    }
    if (captureCheckInterval.isNegative()) {
      throw new IllegalArgumentException("capture_check_interval must be positive or 0 (disabled), was "
          + captureCheckInterval);
    }
    if (outboxRetention.isNegative() || outboxRetention.isZero()) {
      throw new IllegalArgumentException("outbox_retention must be positive, was " + outboxRetention);
    }
    if (maxPollInterval.isNegative() || maxPollInterval.isZero()) {
      throw new IllegalArgumentException("max_poll_interval must be positive, was " + maxPollInterval);
    }
  }

  /** The columns to cache of {@code table} (as written in {@code cached_tables}). */
  public ColumnChoice columnChoice(String table) {
    return columnChoices.getOrDefault(table, ColumnChoice.ALL);
  }

  /** True for MySQL and MariaDB URLs. */
  public boolean isMysqlFamily() {
    return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:");
  }

  @Override
  public String toString() {
    return "SourceConfig[jdbcUrl=" + jdbcUrl.replaceAll("password=[^&]*", "password=***") + ", user=" + user
        + ", cachedTables=" + cachedTables + ", installTriggers=" + installTriggers
        + ", outboxRetention=" + outboxRetention + ", maxPollInterval=" + maxPollInterval
        + ", reconcileInterval=" + reconcileInterval + ", captureCheckInterval=" + captureCheckInterval
        + (columnChoices.isEmpty() ? "" : ", columnChoices=" + columnChoices) + "]";
  }
}
