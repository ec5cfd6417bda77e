package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.log.RecentEvents;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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
 * ones ({@link #lowestNeed}), so that none deletes rows another has not read. Registering is best
 * effort: a server whose user may not write the table (or whose installation predates it) serves
 * anyway, with a WARN.
 */
public final class ConsumerRegistry implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(ConsumerRegistry.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How often a running server refreshes its registration. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(10);

  /** A registration older than this belongs to a server that is gone (six missed heartbeats). */
  public static final Duration LIVENESS = Duration.ofSeconds(60);

  /**
   * A running server, as registered.
   *
   * @param id random per server run
   * @param serverName the server's {@code server_name}
   * @param host the host it runs on
   * @param tables the qualified names of the tables it caches
   * @param needsFrom the lowest outbox position it may still read (0: not known yet); null for a
   *     registry created by a version before it
   */
  public record Consumer(
      String id, String serverName, String host, List<String> tables, Long needsFrom) {
    @Override
    public String toString() {
      return "server '" + serverName + "' on " + host;
    }
  }

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

  /** The registry table of an installation, quoted for SQL. */
  static String table(Dialect dialect, String schema) {
    return dialect.quote(schema) + "." + dialect.quote("tablecast_consumers");
  }

  /** The statements that create the registry table (idempotent). */
  static List<String> createStatements(Dialect dialect, String schema) {
    return SqlTemplates.statements(
        SqlTemplates.render(
            dialect.templates() + "/consumers.sql", Map.of("consumers", table(dialect, schema))));
  }

  /**
   * What brings a registry created by an older version up to this one's ({@code needs_from}, for
   * pruning coordinated between servers); empty when it is current or does not exist yet.
   */
  static List<String> upgradeStatements(Connection c, Dialect dialect, String schema)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*), SUM(CASE WHEN column_name = 'needs_from' THEN 1 ELSE 0 END)"
                + " FROM information_schema.columns"
                + " WHERE table_schema = ? AND table_name = 'tablecast_consumers'")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0 && rs.getLong(2) == 0
            ? List.of("ALTER TABLE " + table(dialect, schema) + " ADD COLUMN needs_from BIGINT")
            : List.of();
      }
    }
  }

  /**
   * The servers registered on this installation whose heartbeat is within {@link #LIVENESS}; empty
   * when the registry table does not exist.
   */
  static List<Consumer> live(Connection c, Dialect dialect, String schema) throws SQLException {
    try {
      return live(c, dialect, schema, "needs_from");
    } catch (SQLException e) {
      if (NO_SUCH_COLUMN.contains(e.getSQLState())) {
        return live(c, dialect, schema, "NULL"); // a registry of a version before needs_from
      }
      throw e;
    }
  }

  private static List<Consumer> live(Connection c, Dialect dialect, String schema, String needsFrom)
      throws SQLException {
    List<Consumer> out = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumer_id, server_name, host, cached_tables, "
                    + needsFrom
                    + " FROM "
                    + table(dialect, schema)
                    + " WHERE "
                    + LIVE
                    + " ORDER BY started_at");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long from = rs.getLong(5);
        Long needs = rs.wasNull() ? null : from; // before any other getter
        out.add(
            new Consumer(
                rs.getString(1), rs.getString(2), rs.getString(3), tables(rs.getString(4)), needs));
      }
    } catch (SQLException e) {
      if (NO_SUCH_TABLE.contains(e.getSQLState())) {
        return List.of(); // installed by a version without the registry, or not installed
      }
      throw e;
    }
    return out;
  }

  /** SQLSTATEs of "table does not exist": MySQL/MariaDB, PostgreSQL. */
  private static final Set<String> NO_SUCH_TABLE = Set.of("42S02", "42P01");

  /** SQLSTATEs of "column does not exist": MySQL/MariaDB, PostgreSQL. */
  private static final Set<String> NO_SUCH_COLUMN = Set.of("42S22", "42703");

  /** A registration whose heartbeat is within {@link #LIVENESS} (SQL, both databases). */
  private static final String LIVE =
      "heartbeat_at > CURRENT_TIMESTAMP(6) - INTERVAL '" + LIVENESS.toSeconds() + "' SECOND";

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
    String table = table(plan.dialect(), plan.outboxSchema());
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
      if (!NO_SUCH_COLUMN.contains(e.getSQLState())) {
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
                + (live ? " AND " + LIVE : ""))) {
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
   * What a live server still needs of the outbox: from position {@code from} on.
   *
   * @param from the lowest outbox position it may still read
   * @param server which server
   */
  public record Need(long from, String server) {}

  /**
   * The live registration that needs the lowest outbox position (below which alone every server
   * prunes), empty when none says (or the registry predates {@code needs_from}).
   */
  public static Optional<Need> lowestNeed(Connection c, Dialect dialect, String schema)
      throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT needs_from, server_name, host FROM "
                    + table(dialect, schema)
                    + " WHERE "
                    + LIVE
                    + " AND needs_from IS NOT NULL ORDER BY needs_from LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(
              new Need(rs.getLong(1), "server '" + rs.getString(2) + "' on " + rs.getString(3)))
          : Optional.empty();
    } catch (SQLException e) {
      if (NO_SUCH_TABLE.contains(e.getSQLState()) || NO_SUCH_COLUMN.contains(e.getSQLState())) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Stops the heartbeat and removes the registration (best effort). */
  @Override
  public void close() {
    if (heartbeats.isShutdown()) {
      return;
    }
    heartbeats.shutdownNow();
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

  private static List<String> tables(String json) {
    try {
      return Arrays.asList(JSON.readValue(json, String[].class));
    } catch (JsonProcessingException e) {
      return List.of();
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
