package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.ConsumerRegistry;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the {@link ChangeSource} of a configured database. */
public final class ChangeSources {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeSources.class);

  /** Connections of the source pool: snapshot or poll, prune, lock probes, and the registry heartbeat. */
  public static final int POOL_SIZE = 4;

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
    return open(config, metrics, (Duration) null);
  }

  /**
   * As {@link #open(SourceConfig, ServerMetrics)}, registering the source in the installation's
   * {@link ConsumerRegistry} as {@code serverName} until it is closed, so that another
   * configuration's install or uninstall knows this server needs its tables' capture.
   */
  public static ChangeSource open(SourceConfig config, ServerMetrics metrics, String serverName) throws SQLException {
    return open(config, metrics, null, HikariDataSource::new, serverName);
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
    return open(config, metrics, probeWait, pools, null);
  }

  private static ChangeSource open(SourceConfig config, ServerMetrics metrics, Duration probeWait,
      java.util.function.Function<HikariConfig, HikariDataSource> pools, String serverName) throws SQLException {
    CapturePlan plan;
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      if (config.installTriggers()) {
        installer.describe(); // every table's problems at once
        installer.install();
      } else {
        // every problem at once: tables, outbox, triggers, privileges (what `tablecast check` prints)
        List<CaptureFinding> problems = installer.check().stream().filter(CaptureFinding::stopsServe).toList();
        if (!problems.isEmpty()) {
          throw new IllegalStateException(CaptureFinding.listing(problems));
        }
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
    ChangeSource source = plan.dialect() == Dialect.POSTGRESQL
        ? new PgChangeSource(plan, pool, config, metrics)
        : new MysqlChangeSource(plan, pool, config, probeWait, metrics);
    return serverName == null ? source : new RegisteredSource(source, ConsumerRegistry.register(plan, pool, serverName));
  }

  /** A source registered in the {@link ConsumerRegistry} while it is open. */
  private record RegisteredSource(ChangeSource source, ConsumerRegistry registry) implements ChangeSource {
    @Override
    public java.util.List<io.tablecast.server.capture.TableSchema> tables() {
      return source.tables();
    }

    @Override
    public void snapshot(SnapshotSink sink) throws SQLException {
      source.snapshot(sink);
    }

    @Override
    public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
      return source.poll(maxWait);
    }

    @Override
    public void close() {
      registry.close(); // before the pool closes
      source.close();
    }
  }
}
