package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the {@link ChangeSource} of a configured database. */
public final class ChangeSources {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeSources.class);

  /** Connections of the source pool: snapshot or poll, prune, and lock probes. */
  public static final int POOL_SIZE = 3;

  private ChangeSources() {}

  /**
   * Describes and validates the cached tables, installs the capture when
   * {@link SourceConfig#installTriggers()} (otherwise checks it is installed and current), and
   * returns the source for the URL's dialect. Call {@link ChangeSource#snapshot} next.
   *
   * @throws IllegalArgumentException naming a table that is unknown, has no primary key or an
   *     unsupported column type
   * @throws IllegalStateException naming a table whose triggers are missing or stale, or a
   *     MySQL foreign key that would change a cached table without firing triggers
   */
  public static ChangeSource open(SourceConfig config) throws SQLException {
    return open(config, ServerMetrics.inMemory());
  }

  /** As {@link #open(SourceConfig)}, recording the source's meters into {@code metrics}. */
  public static ChangeSource open(SourceConfig config, ServerMetrics metrics) throws SQLException {
    return open(config, metrics, null);
  }

  /**
   * As {@link #open(SourceConfig, ServerMetrics)}; {@code probeWait} overrides, for tests, how long
   * MySQL/MariaDB lock probes must find a skipped id absent (default: innodb_lock_wait_timeout + 1 s).
   */
  static ChangeSource open(SourceConfig config, ServerMetrics metrics, Duration probeWait) throws SQLException {
    return open(config, metrics, probeWait, HikariDataSource::new);
  }

  /** As {@link #open(SourceConfig, ServerMetrics, Duration)}, with the pool made by {@code pools} (tests). */
  static ChangeSource open(SourceConfig config, ServerMetrics metrics, Duration probeWait,
      java.util.function.Function<HikariConfig, HikariDataSource> pools) throws SQLException {
    CapturePlan plan;
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      if (config.installTriggers()) {
        installer.install();
      } else {
        installer.verifyInstalled();
      }
      plan = installer.plan();
    }
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("tablecast-source");
    hc.setJdbcUrl(plan.jdbcUrl());
    Properties props = plan.connectionProperties();
    if (props.getProperty("user") != null) {
      hc.setUsername(props.getProperty("user"));
    }
    if (props.getProperty("password") != null) {
      hc.setPassword(props.getProperty("password"));
    }
    hc.setMaximumPoolSize(POOL_SIZE);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(10_000);
    // PostgreSQL reads by snapshot in REPEATABLE READ; MySQL/MariaDB polls are single READ COMMITTED
    // statements (a consistent snapshot asks for REPEATABLE READ for its one transaction). As pool
    // defaults, nothing needs resetting when a connection is given back.
    hc.setTransactionIsolation(plan.dialect().isMysqlFamily() ? "TRANSACTION_READ_COMMITTED"
        : "TRANSACTION_REPEATABLE_READ");
    HikariDataSource pool = pools.apply(hc);
    LOG.info("Source {} ({}): caching {}", config, plan.dialect(), plan.tables().stream().map(t -> t.id().qualified()).toList());
    return plan.dialect() == Dialect.POSTGRESQL
        ? new PgChangeSource(plan, pool, config, metrics)
        : new MysqlChangeSource(plan, pool, config, probeWait, metrics);
  }
}
