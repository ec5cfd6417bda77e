package io.tablecast.server;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.TailLoop;
import io.tablecast.server.net.NettyServer;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Tablecast server: loads a snapshot of the cached tables, tails their changes and
 * serves subscribers on one port.
 *
 * <pre>{@code
 * try (TablecastServer server = TablecastServer.start(ServerConfig.load(Path.of("tablecast.yaml")))) {
 *   server.awaitTermination();
 * }
 * }</pre>
 */
public final class TablecastServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TablecastServer.class);

  private final ChangeSource source;
  private final ChangeHub hub;
  private final TailLoop tail;
  private final NettyServer net;
  private final ServerMetrics metrics;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private boolean closed;

  private TablecastServer(ChangeSource source, ChangeHub hub, TailLoop tail, NettyServer net,
      ServerMetrics metrics) {
    this.metrics = metrics;
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
    ServerMetrics metrics = ServerMetrics.prometheus(); // rendered by GET /metrics
    Authenticator authenticator = config.authenticator();
    if (authenticator == null) {
      LOG.warn("no auth section in the configuration: the server is OPEN, every client may connect and read "
          + "every cached table (see docs/CONFIGURATION.md, Authentication)");
      authenticator = Authenticator.allowAll();
    } else {
      LOG.info("authentication on: {}", authenticator);
    }
    return start(config, source -> openDatabaseSource(source, metrics, config.serverName()), authenticator, metrics);
  }

  /** The production source: the database-backed change source, registered as {@code serverName}. */
  private static ChangeSource openDatabaseSource(SourceConfig source, ServerMetrics metrics, String serverName) {
    try {
      return ChangeSources.open(source, metrics, serverName);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open the change source " + source + ": " + e.getMessage(), e);
    }
  }

  /** Starts a server on the change source the factory opens (tests pass an in-memory source). */
  static TablecastServer start(ServerConfig config, Function<SourceConfig, ChangeSource> sources,
      Authenticator authenticator) throws InterruptedException {
    return start(config, sources, authenticator, ServerMetrics.inMemory());
  }

  static TablecastServer start(ServerConfig config, Function<SourceConfig, ChangeSource> sources,
      Authenticator authenticator, ServerMetrics metrics) throws InterruptedException {
    long t0 = System.nanoTime();
    ChangeSource source = sources.apply(config.source());
    ChangeHub hub = new ChangeHub(config.heartbeat(), config.resumeBufferBatches(), config.resumeBufferBytes(),
        config.slowConsumerMaxPendingBytes(), metrics);
    hub.coalesceMaxKeys(config.slowConsumerCoalesceMaxKeys());
    hub.coalesceMaxBytes(config.slowConsumerCoalesceMaxBytes());
    hub.snapshotTimeout(config.slowConsumerSnapshotTimeout());
    hub.maxSubscriptionsPerConnection(config.maxSubscriptionsPerConnection());
    TailLoop tail = new TailLoop(source, hub);
    NettyServer net = null;
    try {
      tail.startAndAwaitSnapshot();
      metrics.tailGauges(tail::lastPollChanges,
          () -> Math.max(0, System.currentTimeMillis() - tail.caughtUpMillis()) / 1000.0);
      net = NettyServer.bind(config, hub, authenticator, metrics, health(tail, hub));
    } catch (InterruptedException | RuntimeException e) {
      tail.close();
      hub.close();
      closeQuietly(source);
      throw e;
    }
    TablecastServer server = new TablecastServer(source, hub, tail, net, metrics);
    LOG.info("tablecast server '{}' started on {}:{} in {} ms, epoch {}, tables {}", config.serverName(),
        config.listenHost(), net.port(), (System.nanoTime() - t0) / 1_000_000, hub.epoch(), hub.tableNames());
    return server;
  }

  /** How long polls may fail in a row before {@code GET /health} reports DOWN. */
  static final long TAIL_FAILURE_DOWN_MILLIS = 30_000;

  /**
   * {@code /health}: DOWN (503) when the tail loop died, or its polls have failed without a
   * success for longer than {@link #TAIL_FAILURE_DOWN_MILLIS} (clients are still served from
   * memory, but the data is going stale); otherwise UP. There is no STARTING state: the port is
   * bound only after the initial snapshot is loaded. Either way it counts the stale tables.
   */
  private static io.tablecast.server.net.HealthCheck health(TailLoop tail, ChangeHub hub) {
    return () -> tailHealth(tail).withStaleTables(hub.staleTableCount());
  }

  private static io.tablecast.server.net.HealthCheck.Report tailHealth(TailLoop tail) {
    if (tail.died()) {
      return io.tablecast.server.net.HealthCheck.Report.down("the tail loop stopped on an unexpected error");
    }
    long since = tail.failingSinceMillis();
    long failing = since == 0 ? 0 : System.currentTimeMillis() - since;
    if (failing > TAIL_FAILURE_DOWN_MILLIS) {
      return io.tablecast.server.net.HealthCheck.Report.down("reading changes from the database has failed for "
          + failing / 1000 + " s");
    }
    return io.tablecast.server.net.HealthCheck.Report.UP;
  }

  /** The hub (tests inspect its sessions). */
  ChangeHub hub() {
    return hub;
  }

  /** The server's meters (clients, batches, lag, snapshots, resumes, ...). */
  public ServerMetrics metrics() {
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
   * Stops gracefully: sends {@code SHUTTING_DOWN} to every session, stops tailing, closes the
   * port and the change source. Idempotent.
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
