package io.tablecast.server.capture;

import java.time.Duration;
import java.util.List;
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
 */
public record SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
    boolean installTriggers, Duration outboxRetention, Duration maxPollInterval, Duration reconcileInterval) {

  /** Default for {@link #outboxRetention()}: one hour. */
  public static final Duration DEFAULT_OUTBOX_RETENTION = Duration.ofHours(1);
  /** Default for {@link #maxPollInterval()}: 10 ms. */
  public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMillis(10);
  /** Default for {@link #reconcileInterval()}: 30 s. */
  public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(30);

  /** Without {@code reconcileInterval}: the default interval. */
  public SourceConfig(String jdbcUrl, String user, String password, List<String> cachedTables,
      boolean installTriggers, Duration outboxRetention, Duration maxPollInterval) {
    this(jdbcUrl, user, password, cachedTables, installTriggers, outboxRetention, maxPollInterval, null);
  }

  public SourceConfig {
    Objects.requireNonNull(jdbcUrl, "source.jdbc_url must be set");
    if (!jdbcUrl.startsWith("jdbc:mariadb:") && !jdbcUrl.startsWith("jdbc:mysql:")
        && !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("source.jdbc_url must start with jdbc:mariadb:, jdbc:mysql: or "
          + "jdbc:postgresql:, was '" + jdbcUrl + "'");
    }
    cachedTables = List.copyOf(Objects.requireNonNull(cachedTables, "cached_tables must be set"));
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
    if (outboxRetention.isNegative() || outboxRetention.isZero()) {
      throw new IllegalArgumentException("outbox_retention must be positive, was " + outboxRetention);
    }
    if (maxPollInterval.isNegative() || maxPollInterval.isZero()) {
      throw new IllegalArgumentException("max_poll_interval must be positive, was " + maxPollInterval);
    }
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
        + ", reconcileInterval=" + reconcileInterval + "]";
  }
}
