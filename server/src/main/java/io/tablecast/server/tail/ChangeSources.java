package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.ConsumerRegistry;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.metrics.ServerMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the {@link ChangeSource} of a configured database. */
public final class ChangeSources {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeSources.class);

  /**
   * Connections of the source pool: snapshot or poll, a reconciliation range read off the tail's
   * path, prune, lock probes, and the registry heartbeat.
   */
  public static final int POOL_SIZE = 5;

  /** How long a borrower waits for a connection of the pool before its statement fails. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  /** The longest check of a connection the pool hands out (HikariCP's default). */
  static final Duration LONGEST_VALIDATION = Duration.ofSeconds(5);

  /**
   * How long the pool's check of a connection it hands out may wait for its answer: half of {@code
   * source.answer_timeout}, at most {@link #LONGEST_VALIDATION}. A connection gone silent while it
   * sat in the pool holds its borrower (the tail's next read, or the stop that waits for it) that
   * long before the pool drops it and tries another: 4.5 s for a stop with a 2 s answer timeout,
   * where the check took 5 s whatever the setting.
   */
  static Duration validationTimeout(SourceConfig config) {
    Duration half = config.answerTimeout().dividedBy(2);
    return half.compareTo(LONGEST_VALIDATION) < 0 ? half : LONGEST_VALIDATION;
  }

  private ChangeSources() {}

  /**
   * Describes and validates the cached tables, installs the capture when {@link
   * SourceConfig#installTriggers()} (otherwise checks it is installed and current), and returns the
   * source for the URL's dialect. Call {@link ChangeSource#snapshot} next.
   *
   * @throws IllegalArgumentException naming a table that is unknown, has no primary key or an
   *     unsupported column type
   * @throws IllegalStateException naming a table whose triggers are missing or stale, or a MySQL
   *     foreign key that would change a cached table without firing triggers
   */
  public static ChangeSource open(SourceConfig config) throws SQLException {
    return open(config, ServerMetrics.NOOP);
  }

  /** As {@link #open(SourceConfig)}, recording the source's meters into {@code metrics}. */
  public static ChangeSource open(SourceConfig config, ServerMetrics metrics) throws SQLException {
    return open(config, metrics, Tuning.DEFAULT);
  }

  /**
   * As {@link #open(SourceConfig, ServerMetrics)}, registering the source in the installation's
   * {@link ConsumerRegistry} as {@code serverName} until it is closed, so that another
   * configuration's install or uninstall knows this server needs its tables' capture.
   */
  public static ChangeSource open(SourceConfig config, ServerMetrics metrics, String serverName)
      throws SQLException {
    return open(config, metrics, Tuning.DEFAULT, serverName);
  }

  /**
   * As {@link #open(SourceConfig, ServerMetrics)}, with {@code tuning} instead of the defaults
   * (tests).
   */
  static ChangeSource open(SourceConfig config, ServerMetrics metrics, Tuning tuning)
      throws SQLException {
    return open(config, metrics, tuning, null);
  }

  /**
   * What tests shorten or replace; none of it is a configuration key.
   *
   * @param probeWait without innodb_trx, how long MySQL/MariaDB lock probes must find a skipped id
   *     absent; null = {@code innodb_lock_wait_timeout} + 1 s, read from the database
   * @param pruneRest how long the {@link OutboxPruner} rests after a round that found less than a
   *     chunk to delete ({@link OutboxPruner#REST})
   * @param pools makes the source's connection pool
   * @param heartbeat how often a registered source refreshes its registration
   */
  record Tuning(
      Duration probeWait,
      Duration pruneRest,
      Function<HikariConfig, HikariDataSource> pools,
      Duration heartbeat) {
    /** What a server runs with. */
    static final Tuning DEFAULT =
        new Tuning(null, OutboxPruner.REST, HikariDataSource::new, ConsumerRegistry.HEARTBEAT);

    Tuning withProbeWait(Duration wait) {
      return new Tuning(wait, pruneRest, pools, heartbeat);
    }

    Tuning withPruneRest(Duration rest) {
      return new Tuning(probeWait, rest, pools, heartbeat);
    }

    Tuning withPools(Function<HikariConfig, HikariDataSource> maker) {
      return new Tuning(probeWait, pruneRest, maker, heartbeat);
    }

    /** How often a registered source refreshes its registration ({@link ConsumerRegistry}). */
    Tuning withHeartbeat(Duration every) {
      return new Tuning(probeWait, pruneRest, pools, every);
    }
  }

  /** As {@link #open(SourceConfig, ServerMetrics, String)}, with {@code tuning} (tests). */
  static ChangeSource open(
      SourceConfig config, ServerMetrics metrics, Tuning tuning, String serverName)
      throws SQLException {
    CapturePlan plan;
    String task = config.installTriggers() ? "the capture's install" : "the capture's check";
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      InstallerSession session =
          InstallerSession.of(installer, tailDialect(installer.dialect()).sessions());
      try {
        plan = installOrCheck(installer, config);
      } catch (SQLException e) {
        SQLException said =
            BoundedAnswers.sayingUnanswered(e, task, TriggerInstaller.answerWithin(config));
        if (said != e) {
          session.endGivenUp(config.answerTimeout());
        }
        throw said;
      }
    }
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("tablecast-source");
    hc.setJdbcUrl(plan.jdbcUrl());
    Properties props = plan.connectionProperties();
    if (props.getProperty("user") != null) {
      hc.setUsername(props.getProperty("user"));
    }
    if (config.passwordFile() != null) { // read for each connection: a rotated password is used
      String user =
          Objects.requireNonNullElse(
              props.getProperty("user"),
              PoolProperties.driverOptions(plan.jdbcUrl(), props).get("user"));
      hc.setCredentialsProvider(() -> Credentials.of(user, config.password()));
    } else if (props.getProperty("password") != null) {
      hc.setPassword(props.getProperty("password"));
    }
    hc.setMaximumPoolSize(POOL_SIZE);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    hc.setValidationTimeout(validationTimeout(config).toMillis());
    TailDialect dialect = tailDialect(plan.dialect());
    hc.setTransactionIsolation(dialect.poolIsolation());
    hc.setConnectionInitSql(
        initSql(
            plan.dialect().sessionSetup(),
            dialect.poolSessionSetup(PoolProperties.driverOptions(plan.jdbcUrl(), props))));
    PoolProperties.apply(hc, plan.jdbcUrl(), dialect.poolProperties());
    Map<String, String> given = PoolProperties.driverOptions(plan.jdbcUrl(), props);
    dialect
        .poolDefaults()
        .forEach(
            (name, value) -> {
              if (!given.containsKey(name.toLowerCase(Locale.ROOT))) {
                hc.addDataSourceProperty(name, value);
              }
            });
    HikariDataSource pool = tuning.pools().apply(hc);
    LOG.info(
        "Source {} ({}): caching {}",
        config,
        dialect,
        plan.tables().stream().map(t -> t.id().qualified()).toList());
    ChangeSource source =
        dialect.open(
            new SourceContext(plan, pool, config, metrics, tuning.pruneRest(), tuning.probeWait()));
    return serverName == null
        ? source
        : new RegisteredSource(
            source,
            ConsumerRegistry.register(
                plan, pool, serverName, tuning.heartbeat(), source::neededFrom));
  }

  /**
   * Installs the capture, or checks it when {@code install_triggers} is off (every problem at once:
   * tables, outbox, triggers, privileges, what {@code tablecast check} prints), and returns the
   * plan.
   */
  private static CapturePlan installOrCheck(TriggerInstaller installer, SourceConfig config)
      throws SQLException {
    if (config.installTriggers()) {
      installer.describe(); // every table's problems at once
      installer.install();
    } else {
      List<CaptureFinding> problems =
          installer.check().stream().filter(CaptureFinding::stopsServe).toList();
      if (!problems.isEmpty()) {
        throw new IllegalStateException(CaptureFinding.listing(problems));
      }
    }
    return installer.plan();
  }

  /** The pool's connection init: the session's setup, then the pool's own, either perhaps null. */
  static String initSql(String session, String pool) {
    return session == null ? pool : pool == null ? session : session + "; " + pool;
  }

  /** The tail's side of {@code dialect}, which every registered database's dialect implements. */
  private static TailDialect tailDialect(Dialect dialect) {
    if (dialect instanceof TailDialect tail) {
      return tail;
    }
    throw new IllegalStateException(
        "the dialect "
            + dialect
            + " ("
            + dialect.getClass().getName()
            + ") cannot be "
            + "tailed: a registered database's dialect must implement "
            + TailDialect.class.getName());
  }

  /** A source registered in the {@link ConsumerRegistry} while it is open. */
  private static final class RegisteredSource extends ForwardingChangeSource {
    private final ConsumerRegistry registry;

    RegisteredSource(ChangeSource source, ConsumerRegistry registry) {
      super(source);
      this.registry = registry;
    }

    /**
     * Re-reads every cached table when the registration had expired: other servers pruned without
     * regard to this one meanwhile, so rows it had not read may be gone (on the tail's thread, as
     * every resync is asked for).
     */
    @Override
    public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
      if (registry.takeExpired()) {
        for (io.tablecast.server.capture.TableSchema t : tables()) {
          resync(t.id().qualified());
        }
      }
      return super.poll(maxWait);
    }

    @Override
    public void close() {
      registry.close(); // before the pool closes
      super.close();
    }
  }
}
