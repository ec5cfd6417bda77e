package io.tablecast.server;

import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.auth.ReloadingAuthenticator;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.console.Console;
import io.tablecast.server.console.ConsoleAccess;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.net.HealthCheck;
import io.tablecast.server.net.NetSettings;
import io.tablecast.server.net.NettyServer;
import io.tablecast.server.net.StartingPort;
import io.tablecast.server.net.WebAccess;
import io.tablecast.server.stream.CheckpointWriter;
import io.tablecast.server.stream.StreamChangeSource;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.HeapRoom;
import io.tablecast.server.tail.TailLoop;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;

/**
 * A running Tablecast server: loads a snapshot of the cached tables, tails their changes and serves
 * subscribers on one port.
 *
 * <pre>{@code
 * try (TablecastServer server = TablecastServer.start(ServerConfig.load(Path.of("tablecast.yaml")))) {
 *   server.awaitTermination();
 * }
 * }</pre>
 */
public final class TablecastServer implements AutoCloseable {

  private static final Logger LOG = RecentEvents.logger(TablecastServer.class);

  private final ChangeSource source;
  private final ChangeHub hub;
  private final TailLoop tail;
  private final NettyServer net;
  private final ReloadingAuthenticator rules;
  private final MicrometerServerMetrics metrics;
  private final CheckpointWriter checkpoints; // null unless serving from a stream
  private final CountDownLatch terminated = new CountDownLatch(1);
  private boolean closed;

  private TablecastServer(
      ChangeSource source,
      ChangeHub hub,
      TailLoop tail,
      NettyServer net,
      ReloadingAuthenticator rules,
      MicrometerServerMetrics metrics,
      CheckpointWriter checkpoints) {
    this.rules = rules;
    this.metrics = metrics;
    this.checkpoints = checkpoints;
    this.source = source;
    this.hub = hub;
    this.tail = tail;
    this.net = net;
  }

  /**
   * Opens the configured database, loads the initial snapshot, binds the port and returns once
   * clients can connect.
   *
   * @throws IllegalStateException when the source cannot be opened or snapshotted, or the port
   *     cannot be bound
   * @throws InterruptedException when interrupted while starting
   */
  public static TablecastServer start(ServerConfig config) throws InterruptedException {
    MicrometerServerMetrics metrics =
        MicrometerServerMetrics.prometheus(); // rendered by GET /metrics
    Authenticator authenticator = config.authenticator();
    if (authenticator == null) {
      LOG.warn(
          "no auth section in the configuration: the server is OPEN, every client may connect and read "
              + "every cached table (see docs/CONFIGURATION.md, Authentication)");
      authenticator = Authenticator.allowAll();
    } else {
      LOG.info("authentication on: {}", authenticator);
    }
    AtomicReference<String> status = new AtomicReference<>(OPENING);
    return start(
        config,
        source ->
            config.nats() != null
                ? openStreamSource(config, status::set)
                : openDatabaseSource(source, metrics, config.serverName()),
        authenticator,
        metrics,
        HeapRoom.runtime(),
        status);
  }

  /** What a starting server's {@code /health} says before it knows more. */
  private static final String OPENING = "opening the change source";

  /** The production source: the database-backed change source, registered as {@code serverName}. */
  private static ChangeSource openDatabaseSource(
      SourceConfig source, MicrometerServerMetrics metrics, String serverName) {
    try {
      return ChangeSources.open(source, metrics, serverName);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot open the change source on " + source.database() + ": " + e.getMessage(), e);
    }
  }

  /**
   * With {@code nats:} configured: the images come from the stream capture publishes to, never from
   * the database (docs/SCALE-OUT.md).
   */
  private static ChangeSource openStreamSource(ServerConfig config, Consumer<String> doing) {
    try {
      return StreamChangeSource.open(
          config.nats(),
          config.source() == null ? null : config.source().jdbcUrl(),
          config.serverName(),
          doing);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the NATS stream", e);
    }
  }

  /** Starts a server on the change source the factory opens (tests pass an in-memory source). */
  static TablecastServer start(
      ServerConfig config,
      Function<SourceConfig, ChangeSource> sources,
      Authenticator authenticator,
      MicrometerServerMetrics metrics)
      throws InterruptedException {
    return start(config, sources, authenticator, metrics, HeapRoom.runtime());
  }

  /**
   * As {@link #start(ServerConfig, Function, Authenticator, MicrometerServerMetrics)}, sizing the
   * images against {@code heap} (tests give a small heap of their own).
   */
  static TablecastServer start(
      ServerConfig config,
      Function<SourceConfig, ChangeSource> sources,
      Authenticator authenticator,
      MicrometerServerMetrics metrics,
      HeapRoom heap)
      throws InterruptedException {
    return start(config, sources, authenticator, metrics, heap, new AtomicReference<>(OPENING));
  }

  /**
   * As {@link #start(ServerConfig, Function, Authenticator, MicrometerServerMetrics, HeapRoom)};
   * {@code status} says what the start does now (the source sets it while it opens), for {@code
   * /health} on the port bound while the server starts ({@link StartingPort}).
   */
  private static TablecastServer start(
      ServerConfig config,
      Function<SourceConfig, ChangeSource> sources,
      Authenticator authenticator,
      MicrometerServerMetrics metrics,
      HeapRoom heap,
      AtomicReference<String> status)
      throws InterruptedException {
    long t0 = System.nanoTime();
    ReloadingAuthenticator rules = new ReloadingAuthenticator(authenticator);
    if (authenticator instanceof ConfigAuthenticator policies) {
      policies.fetchKeysInBackground();
    }
    AtomicReference<TailLoop> loading = new AtomicReference<>();
    StartingPort starting =
        StartingPort.bind(
            ConfigSections.net(config),
            config.serverName(),
            () -> {
              TailLoop t = loading.get();
              String snapshot = t == null ? null : t.snapshotProgress();
              return snapshot != null ? "loading the images, " + snapshot : status.get();
            });
    ChangeSource source;
    try {
      source = sources.apply(config.source());
    } catch (RuntimeException e) {
      starting.close();
      throw e;
    }
    StreamChangeSource stream = source instanceof StreamChangeSource s ? s : null;
    ChangeHub hub =
        stream == null
            ? new ChangeHub(ConfigSections.hub(config), metrics)
            : new ChangeHub(ConfigSections.hub(config), metrics, stream.epoch(), stream.history());
    source.readBarrier().ifPresent(hub::answerSyncsThrough);
    if (stream != null) {
      hub.answerSyncsFromStream(stream::committedSequence);
    }
    TailLoop tail =
        new TailLoop(
            source, stream == null ? hub : stream.into(hub), heap, config.heapReservePercent());
    NettyServer net = null;
    try {
      metrics.tablesCached(source.tables().stream().map(t -> t.id().qualified()).toList());
      warnOfPolicyReferences(authenticator, source);
      status.set("loading the images");
      loading.set(tail);
      tail.startAndAwaitSnapshot();
      metrics.tailGauges(
          tail::lastPollChanges,
          () -> Math.max(0, System.currentTimeMillis() - tail.caughtUpMillis()) / 1000.0);
      HealthCheck health = health(tail, hub);
      int port = starting.port(); // the configured one, or the one port 0 got
      NetSettings settings = ConfigSections.net(config, port);
      Console console = console(config, rules, settings.access(), hub, metrics, health);
      // the same socket, never unbound in between: nothing else can take the port
      net = NettyServer.bind(settings, hub, rules, metrics, health, console, starting.handOver());
    } catch (InterruptedException | RuntimeException e) {
      starting.close();
      tail.close();
      hub.close();
      closeQuietly(source);
      throw e;
    }
    TablecastServer server =
        new TablecastServer(
            source,
            hub,
            tail,
            net,
            rules,
            metrics,
            stream == null ? null : stream.checkpoints(hub));
    LOG.info(
        "tablecast server '{}' started on {}:{} in {} ms ({}), epoch {}, " + "tables {}",
        config.serverName(),
        config.listen().host(),
        net.port(),
        (System.nanoTime() - t0) / 1_000_000,
        ProcessAge.describe(),
        hub.epoch(),
        hub.tableNames());
    return server;
  }

  /**
   * Serves with the access rules {@code next} from now on ({@code auth:} changed while serving;
   * null is an open server): new hellos are checked by them, and each open session they no longer
   * admit as it was admitted (its principal gone, its password changed, what it may read changed)
   * is ended with {@code AUTHENTICATION_FAILED} saying why; its client connects again under them.
   *
   * @return how many sessions were ended
   */
  public synchronized int replaceAuthenticator(Authenticator next) {
    Authenticator rulesNow = next == null ? Authenticator.allowAll() : next;
    if (rulesNow instanceof ConfigAuthenticator policies) {
      policies.fetchKeysInBackground();
    }
    Authenticator before = rules.replace(rulesNow);
    warnOfPolicyReferences(rulesNow, source);
    int ended =
        net.withdraw(session -> ReloadingAuthenticator.withdrawn(before, rulesNow, session));
    LOG.info(
        "access rules replaced ({}): {} open sessions they no longer admit ended",
        rulesNow instanceof ConfigAuthenticator ? rulesNow : "open: no auth section",
        ended);
    return ended;
  }

  /**
   * Replaces {@code metrics_token} and {@code allowed_origins} while serving ({@link
   * ConfigFileWatch}): requests and WebSocket handshakes from now on are checked against them; the
   * sessions open go on.
   */
  public void replaceWebAccess(String metricsToken, List<String> allowedOrigins) {
    net.access().replace(metricsToken, allowedOrigins);
    LOG.info("metrics_token and allowed_origins replaced, allowed origins now {}", allowedOrigins);
  }

  /** Warns of what the access policies name that the cached tables do not have. */
  private static void warnOfPolicyReferences(Authenticator authenticator, ChangeSource source) {
    if (authenticator instanceof ConfigAuthenticator policies) {
      policies.policyWarnings(source.tables()).forEach(LOG::warn);
    }
  }

  /**
   * The operations console: admin principals when the configuration has an {@code auth} section,
   * else {@code metrics_token}, else open (see {@link ConsoleAccess}).
   */
  private static Console console(
      ServerConfig config,
      Authenticator rules,
      WebAccess web,
      ChangeHub hub,
      MicrometerServerMetrics metrics,
      HealthCheck health) {
    return new Console(
        hub::view,
        metrics.registry(),
        ConsoleAccess.following(
            config.authenticator() == null ? null : rules, // admins as the rules of now say
            web::metricsToken),
        config.serverName(),
        () -> {
          HealthCheck.Report r = health.check();
          return r.up() ? r.status() : r.status() + ": " + r.reason();
        },
        RecentEvents.global());
  }

  /**
   * {@code /health}: DOWN (503) when the tail is not keeping the images current ({@link
   * TailLoop#problem}: it stopped, or its reads have failed or gone unanswered for long; clients
   * are still served from memory, but the data is going stale); otherwise UP. There is no STARTING
   * state: the port is bound only after the initial snapshot is loaded. Either way it counts the
   * stale tables.
   */
  private static HealthCheck health(TailLoop tail, ChangeHub hub) {
    return () -> {
      String problem = tail.problem();
      HealthCheck.Report report =
          problem == null ? HealthCheck.Report.UP : HealthCheck.Report.down(problem);
      return report.withStaleTables(hub.staleTableCount());
    };
  }

  /** The hub (tests inspect its sessions). */
  ChangeHub hub() {
    return hub;
  }

  /** The server's meters (clients, batches, lag, snapshots, resumes, ...). */
  public MicrometerServerMetrics metrics() {
    return metrics;
  }

  /** The bound TCP port. */
  public int port() {
    return net.port();
  }

  /** Identifies this run of the server; positions are comparable only within one epoch. */
  public String epoch() {
    return hub.epoch();
  }

  /** The position of the last applied batch. */
  public long position() {
    return hub.position();
  }

  /** Blocks until {@link #close()} has completed (for the command line). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Stops gracefully: sends {@code SHUTTING_DOWN} to every session, stops tailing, closes the port
   * and the change source. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      if (checkpoints != null) {
        checkpoints.close();
      }
      tail.close();
      net.close();
      hub.close();
      closeQuietly(source);
      LOG.info("tablecast server stopped");
    } finally {
      terminated.countDown();
    }
  }

  private static void closeQuietly(ChangeSource source) {
    try {
      source.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the change source failed", e);
    }
  }
}
