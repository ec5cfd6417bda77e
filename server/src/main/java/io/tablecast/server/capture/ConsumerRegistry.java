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
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * Who needs which capture: the {@code tablecast_consumers} table beside the outbox, where every
 * running server registers the tables it caches and refreshes a heartbeat (database clock) every
 * {@link #HEARTBEAT}. A server whose heartbeat is older than {@link #LIVENESS} is gone. {@link
 * TriggerInstaller#install()} never removes capture, and {@link TriggerInstaller#uninstall} refuses
 * to remove a table a live server needs, so that one configuration cannot remove the capture
 * another server still reads. Registering is best effort: a server whose user may not write the
 * table (or whose installation predates it) serves anyway, with a WARN.
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
   */
  public record Consumer(String id, String serverName, String host, List<String> tables) {
    @Override
    public String toString() {
      return "server '" + serverName + "' on " + host;
    }
  }

  private final DataSource pool;
  private final String table;
  private final String id;
  private final ScheduledExecutorService heartbeats;
  private volatile boolean warned;

  private ConsumerRegistry(DataSource pool, String table, String id) {
    this.pool = pool;
    this.table = table;
    this.id = id;
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
   * The servers registered on this installation whose heartbeat is within {@link #LIVENESS}; empty
   * when the registry table does not exist.
   */
  static List<Consumer> live(Connection c, Dialect dialect, String schema) throws SQLException {
    List<Consumer> out = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumer_id, server_name, host, cached_tables FROM "
                    + table(dialect, schema)
                    + " WHERE heartbeat_at > CURRENT_TIMESTAMP(6) - INTERVAL '"
                    + LIVENESS.toSeconds()
                    + "' SECOND ORDER BY started_at");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Consumer(
                rs.getString(1), rs.getString(2), rs.getString(3), tables(rs.getString(4))));
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
  private static final java.util.Set<String> NO_SUCH_TABLE = java.util.Set.of("42S02", "42P01");

  /**
   * Registers a server that caches the plan's tables and keeps its heartbeat until {@link
   * #close()}. Never throws: a registration that fails is logged.
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // heartbeat() logs its own failures; close() ends the schedule
  public static ConsumerRegistry register(CapturePlan plan, DataSource pool, String serverName) {
    String table = table(plan.dialect(), plan.outboxSchema());
    ConsumerRegistry registry = new ConsumerRegistry(pool, table, UUID.randomUUID().toString());
    List<String> tables = plan.tables().stream().map(t -> t.id().qualified()).toList();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (consumer_id, server_name, host, cached_tables) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, registry.id);
      ps.setString(2, serverName);
      ps.setString(3, host());
      ps.setString(4, JSON.writeValueAsString(tables));
      ps.executeUpdate();
      long every = HEARTBEAT.toMillis();
      registry.heartbeats.scheduleWithFixedDelay(
          registry::heartbeat, every, every, TimeUnit.MILLISECONDS);
      LOG.info(
          "Registered in {} as {} ('{}'), needing the capture of {}",
          table,
          registry.id,
          serverName,
          tables);
    } catch (SQLException | JsonProcessingException e) {
      LOG.warn(
          "Cannot register in {} ({}): another configuration's `tablecast install` or `uninstall` will not "
              + "know that this server needs the capture of {}. Run `tablecast install` with this version, and grant "
              + "the serving user INSERT, UPDATE, DELETE on it (docs/SECURITY.md).",
          table,
          e.getMessage(),
          tables);
      registry.heartbeats.shutdown();
    }
    return registry;
  }

  private void heartbeat() {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + table
                    + " SET heartbeat_at = CURRENT_TIMESTAMP(6) WHERE consumer_id = ?")) {
      ps.setString(1, id);
      ps.executeUpdate();
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

  /** Stops the heartbeat and removes the registration (best effort). */
  @Override
  public void close() {
    if (heartbeats.isShutdown()) {
      return;
    }
    heartbeats.shutdownNow();
    try (Connection c = pool.getConnection();
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
