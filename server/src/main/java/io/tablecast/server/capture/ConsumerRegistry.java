package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.log.RecentEvents;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * Who needs which capture: the {@code tablecast_consumers} table beside the outbox, where every
 * running server registers the tables it caches and refreshes a heartbeat (database clock) every
 * {@link #HEARTBEAT}. A server whose heartbeat is older than {@link #LIVENESS} is gone. {@link
 * TriggerInstaller#install()} never removes capture, and {@link TriggerInstaller#uninstall} refuses
 * to remove a table a live server needs, so that one configuration cannot remove the capture
 * another server still reads. With each heartbeat a server also writes the lowest outbox position
 * it may still read ({@code needs_from}), and every server prunes only below the lowest of the live
 * ones ({@link Registrations#lowestNeed}), so that none deletes rows another has not read.
 * Registering is best effort: a server whose user may not write the table (or whose installation
 * predates it) serves anyway, with a WARN.
 */
public final class ConsumerRegistry implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(ConsumerRegistry.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How often a running server refreshes its registration. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(10);

  /** A registration older than this belongs to a server that is gone (six missed heartbeats). */
  public static final Duration LIVENESS = Duration.ofSeconds(60);

  /** How long a stopping server waits for its registration to be removed. */
  static final Duration REMOVE_WITHIN = Duration.ofSeconds(2);

  private final DataSource pool;
  private final String table;
  private final String id;
  private final Supplier<OptionalLong> neededFrom;

  /** How long a heartbeat may wait for its answer: its period, at least a second. */
  private final Duration answerWithin;

  private static final Duration MIN_ANSWER_WITHIN = Duration.ofSeconds(1);
  private final ScheduledExecutorService heartbeats;
  private final AtomicBoolean expired = new AtomicBoolean();

  /** The registration was made (at start, or by a heartbeat since). */
  private volatile boolean registered;

  private volatile boolean warned;

  /** The registry has {@code needs_from} (false: installed by a version before it). */
  private volatile boolean coordinated = true;

  private String serverName;
  private String tablesJson;

  private ConsumerRegistry(
      DataSource pool, String table, String id, Duration every, Supplier<OptionalLong> neededFrom) {
    this.pool = pool;
    this.table = table;
    this.id = id;
    this.answerWithin = every.compareTo(MIN_ANSWER_WITHIN) < 0 ? MIN_ANSWER_WITHIN : every;
    this.neededFrom = neededFrom;
    this.heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-registry");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Registers a server that caches the plan's tables and keeps its heartbeat until {@link
   * #close()}. Never throws: a registration that fails is logged.
   */
  public static ConsumerRegistry register(CapturePlan plan, DataSource pool, String serverName) {
    return register(plan, pool, serverName, HEARTBEAT, OptionalLong::empty);
  }

  /**
   * As {@link #register(CapturePlan, DataSource, String)}, refreshing it {@code every} period with
   * what the server's source still needs of the outbox ({@code neededFrom}: the lowest position it
   * may still read, empty while it does not know). Other servers prune only below the lowest of the
   * live servers' positions; until its first heartbeat a server needs everything (0).
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // heartbeat() logs its own failures; close() ends the schedule
  public static ConsumerRegistry register(
      CapturePlan plan,
      DataSource pool,
      String serverName,
      Duration every,
      Supplier<OptionalLong> neededFrom) {
    String table = Registrations.table(plan.dialect(), plan.outboxSchema());
    ConsumerRegistry registry =
        new ConsumerRegistry(pool, table, UUID.randomUUID().toString(), every, neededFrom);
    List<String> tables = plan.tables().stream().map(t -> t.id().qualified()).toList();
    registry.serverName = serverName;
    try {
      registry.tablesJson = JSON.writeValueAsString(tables);
    } catch (JsonProcessingException e) { // a list of names
      throw new IllegalStateException(e);
    }
    // bounded as a heartbeat is: a start whose registration's answer was lost waited for ever
    try (Connection c = BoundedAnswers.borrow(pool, registry.answerWithin)) {
      registry.insert(c);
      registry.registered = true;
      LOG.info(
          "Registered in {} as {} ('{}'), needing the capture of {}",
          table,
          registry.id,
          serverName,
          tables);
    } catch (SQLException e) {
      LOG.warn(
          "Cannot register in {} ({}): until a heartbeat can, another configuration's `tablecast install` or"
              + " `uninstall` will not know that this server needs the capture of {}. Run `tablecast install`"
              + " with this version, and grant the serving user INSERT, UPDATE, DELETE on it (docs/SECURITY.md).",
          table,
          e.getMessage(),
          tables);
    }
    registry.heartbeats.scheduleWithFixedDelay(
        registry::heartbeat, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    return registry;
  }

  private void insert(Connection c) throws SQLException {
    try {
      insert(c, true);
    } catch (SQLException e) {
      if (!Registrations.NO_SUCH_COLUMN.contains(e.getSQLState())) {
        throw e;
      }
      coordinated = false;
      LOG.warn(
          "{} was created by an older version, without needs_from: this server's pruning of the outbox "
              + "cannot be coordinated with other servers on it, and one that is far behind another could "
              + "miss rows the other pruned. Run `tablecast install` with this version.",
          table);
      insert(c, false);
    }
  }

  private void insert(Connection c, boolean withNeeds) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + table
                + " (consumer_id, server_name, host, cached_tables"
                + (withNeeds ? ", needs_from) VALUES (?, ?, ?, ?, 0)" : ") VALUES (?, ?, ?, ?)"))) {
      ps.setString(1, id);
      ps.setString(2, serverName);
      ps.setString(3, host());
      ps.setString(4, tablesJson);
      ps.executeUpdate();
    }
  }

  /**
   * Refreshes the registration and what the server needs. A registration found expired (no
   * heartbeat for {@link #LIVENESS}: the process paused, or cut from the database) is made anew,
   * and {@link #takeExpired()} tells the source: meanwhile other servers pruned without regard to
   * it, so it may have missed rows. A heartbeat whose answer has not come within its period is
   * given up ({@link BoundedAnswers}), so that a connection gone silent under it does not end the
   * heartbeats while the server serves on: the registration would expire unseen, and with it the
   * hold on other servers' pruning and uninstalls.
   */
  private void heartbeat() {
    try (Connection c = BoundedAnswers.borrow(pool, answerWithin)) {
      if (!registered) { // the start's registration failed, or its answer was lost: made now
        if (refresh(c, OptionalLong.of(0), false) == 0) {
          insert(c);
        }
        registered = true;
        expired.set(true);
        LOG.warn(
            "Registered in {} as {} only now: other servers may have pruned outbox rows this server"
                + " had not read. Re-reading every cached table.",
            table,
            id);
        warned = false;
        return;
      }
      OptionalLong needs = neededFrom.get();
      if (refresh(c, needs, true) == 0) {
        expired.set(true);
        LOG.warn(
            "This server's registration in {} had expired (no heartbeat for over {} s): other servers "
                + "may have pruned outbox rows it had not read. Registering again and re-reading every "
                + "cached table.",
            table,
            LIVENESS.toSeconds());
        if (refresh(c, OptionalLong.of(0), false) == 0) {
          insert(c); // removed meanwhile (`uninstall --force`, or by hand)
        }
      }
      warned = false;
    } catch (SQLException | RuntimeException e) {
      if (!warned) { // once per run of failures: the database may be down for a while
        LOG.warn(
            "Refreshing this server's registration in {} failed, will retry: {}",
            table,
            e.toString());
        warned = true;
      }
    }
  }

  /** Updates the heartbeat (and {@code needs}, when known); {@code live}: only if not expired. */
  private int refresh(Connection c, OptionalLong needs, boolean live) throws SQLException {
    boolean withNeeds = coordinated && needs.isPresent();
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + table
                + " SET heartbeat_at = CURRENT_TIMESTAMP(6)"
                + (withNeeds ? ", needs_from = ?" : "")
                + " WHERE consumer_id = ?"
                + (live ? " AND " + Registrations.LIVE : ""))) {
      int i = 1;
      if (withNeeds) {
        ps.setLong(i++, needs.getAsLong());
      }
      ps.setString(i, id);
      return ps.executeUpdate();
    }
  }

  /** Whether the registration expired since the last call (see {@link #heartbeat()}). */
  public boolean takeExpired() {
    return expired.getAndSet(false);
  }

  /**
   * Stops the heartbeat and removes the registration: best effort, waiting at most {@link
   * #REMOVE_WITHIN}. A database gone away (refusing connections, or silent) would otherwise hold
   * the server's stop for the pool's wait for a connection, 10 s, or the statement's bound; the
   * registration left behind expires after {@link #LIVENESS}.
   */
  @Override
  public void close() {
    if (heartbeats.isShutdown()) {
      return;
    }
    heartbeats.shutdownNow();
    Thread removal = new Thread(this::remove, "tablecast-registry-remove");
    removal.setDaemon(true);
    removal.start();
    try {
      removal.join(REMOVE_WITHIN.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (removal.isAlive()) {
      removal.interrupt(); // ends a wait for a connection; a statement sent ends with the pool
      LOG.info(
          "the registration {} was not removed within {} s (the database does not answer): it"
              + " expires on its own after {} s",
          id,
          REMOVE_WITHIN.toSeconds(),
          LIVENESS.toSeconds());
    }
  }

  private void remove() {
    try (Connection c = BoundedAnswers.borrow(pool, answerWithin);
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM " + table + " WHERE consumer_id = ?")) {
      ps.setString(1, id);
      ps.executeUpdate();
    } catch (SQLException | RuntimeException e) {
      LOG.debug(
          "removing the registration {} failed (it expires on its own): {}", id, e.toString());
    }
  }

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown host";
    }
  }
}
