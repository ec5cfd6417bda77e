package io.tablecast.server.tail;

import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.CaptureStatus;
import io.tablecast.server.capture.RequiredTrigger;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL/MariaDB: every {@code capture_check_interval}, on a thread of its own, reads from the
 * catalog which capture triggers the cached tables need now and whether they are there
 * ({@link CapturePlan#captureStatus}): their own triggers, and their parents' key-recording
 * triggers for every foreign-key action into them, including foreign keys added while the server
 * runs and parents it does not cache. Triggers record changes only from their creation on, so a
 * missing one means changes may already have been lost:
 * <ul>
 *   <li>an ERROR names the cached table and the trigger (and its foreign keys), counted in
 *       {@code tablecast.capture.problems{table, kind=missing_trigger}}, once per problem;
 *   <li>with {@code install_triggers} the triggers are installed (idempotently, new before stale),
 *       and each table whose capture is complete again is re-read in the stream's consistent
 *       snapshot ({@link CommittedBatch.Purpose#RESYNC}: the differences are the changes the
 *       missing trigger did not record, published as expected work, not as repairs);
 *   <li>otherwise, or when the install fails, the table cannot be followed until someone runs
 *       {@code tablecast install}: see {@link #cannotBeFollowed}.
 * </ul>
 * Foreign-key actions that no trigger can capture (a new cycle of cascades) are logged the same
 * way ({@code kind=not_capturable}). One check costs two indexed catalog lookups per cached table
 * and per parent, and one per table carrying triggers (docs/CONFIGURATION.md gives a measurement).
 */
final class MysqlCaptureWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MysqlCaptureWatch.class);

  private final Supplier<CapturePlan> plan;
  private final SourceConfig config;
  private final ServerMetrics metrics;
  private final ScheduledExecutorService timer;
  /** Tables whose capture was completed by a check: re-read with the next batch. */
  private final Set<TableId> resyncs = ConcurrentHashMap.newKeySet();
  /** Problems already logged and counted; forgotten once solved, so a recurrence is reported again. */
  private final Set<String> reported = new HashSet<>();

  MysqlCaptureWatch(Supplier<CapturePlan> plan, SourceConfig config, ServerMetrics metrics) {
    this.plan = plan;
    this.config = config;
    this.metrics = metrics;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tablecast-capture-watch");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the schedule (nothing when {@code capture_check_interval} is 0). */
  void start() {
    long every = config.captureCheckInterval().toMillis();
    if (every > 0) {
      timer.scheduleWithFixedDelay(this::checkQuietly, every, every, TimeUnit.MILLISECONDS);
    }
  }

  private void checkQuietly() {
    try {
      check();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Capture check failed, retrying in {}: {}", config.captureCheckInterval(), e.toString());
    }
  }

  /**
   * One check: reports what is missing, installs it when allowed and queues the tables whose
   * capture became complete for a resync. Returns what the catalog showed before any install.
   */
  synchronized CaptureStatus check() throws SQLException {
    CaptureStatus status = status();
    Set<String> current = new HashSet<>();
    Set<TableId> incomplete = new LinkedHashSet<>();
    for (RequiredTrigger t : status.missing()) {
      String key = "trigger " + t.on() + "." + t.name() + " for " + t.cachedTable();
      current.add(key);
      incomplete.add(t.cachedTable());
      if (reported.add(key)) {
        metrics.captureProblem(t.cachedTable().qualified(), "missing_trigger");
        LOG.error("Capture of cached table {} is incomplete: {}", t.cachedTable(), t.recordsCascades()
            ? "trigger " + t.name() + " on " + t.on() + ", which records the rows the actions of foreign key(s) "
                + String.join(", ", t.foreignKeys()) + " change, is missing (a foreign key added or changed, or "
                + "the trigger dropped); changes made by those actions since are not in the stream"
            : "its trigger " + t.name() + " is missing (dropped, or the table altered); its changes since are not "
                + "in the stream");
      }
    }
    for (CaptureStatus.Problem p : status.problems()) {
      current.add(p.message());
      incomplete.addAll(p.tables());
      if (reported.add(p.message())) {
        p.tables().forEach(t -> metrics.captureProblem(t.qualified(), "not_capturable"));
        LOG.error("Capture of cached table(s) {} is incomplete: {}", p.tables(), p.message());
      }
    }
    reported.retainAll(current);
    if (incomplete.isEmpty()) {
      return status;
    }
    Set<TableId> fixed = new LinkedHashSet<>();
    if (config.installTriggers() && !status.missing().isEmpty()) {
      fixed.addAll(install(incomplete));
    }
    for (TableId t : incomplete) {
      if (fixed.contains(t)) {
        resyncs.add(t);
      } else {
        cannotBeFollowed(t, config.installTriggers() ? "its capture could not be installed (see the ERROR above)"
            : "install_triggers is off: run `tablecast install` (or set install_triggers: true)");
      }
    }
    return status;
  }

  /** Installs the capture; returns the tables among {@code incomplete} whose capture is complete now. */
  private Set<TableId> install(Set<TableId> incomplete) throws SQLException {
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
    } catch (RuntimeException e) {
      LOG.error("Capture triggers of {} cannot be installed: {}", incomplete, e.getMessage());
      return Set.of();
    }
    CaptureStatus after = status();
    Set<TableId> fixed = new LinkedHashSet<>(incomplete);
    after.missing().forEach(t -> fixed.remove(t.cachedTable()));
    after.problems().forEach(p -> fixed.removeAll(p.tables()));
    reported.clear(); // what is still wrong is reported again at the next check
    if (!fixed.isEmpty()) {
      LOG.warn("Capture triggers installed for {}; re-reading those tables in the stream's snapshot to publish "
          + "the changes made while a trigger was missing", fixed);
    }
    return fixed;
  }

  private CaptureStatus status() throws SQLException {
    CapturePlan p = plan.get();
    try (Connection c = p.connect()) {
      return p.captureStatus(c);
    }
  }

  /**
   * Hook for the per-table stale state: {@code table}'s capture is incomplete and could not be
   * fixed, so the server cannot follow it (changes made by a missing trigger's table or foreign
   * key do not reach clients until an install and a resync). Today the ERROR above and the
   * metric say so; the stale state (health, clients' API) is to be set here, and cleared where a
   * table is queued for its resync in {@link #check()}.
   */
  private void cannotBeFollowed(TableId table, String reason) {
    LOG.debug("Cached table {} cannot be followed: {}", table, reason);
  }

  /** The cached tables to re-read with the next batch, as the plan describes them now. */
  List<TableSchema> pendingResyncs(CapturePlan current) {
    if (resyncs.isEmpty()) {
      return List.of();
    }
    Map<TableId, TableSchema> byId = new LinkedHashMap<>();
    current.tables().forEach(t -> byId.put(t.id(), t));
    List<TableSchema> out = new ArrayList<>();
    for (TableId id : resyncs) {
      if (byId.containsKey(id)) {
        out.add(byId.get(id));
      }
    }
    return out;
  }

  /** Has {@code table} re-read with the next batch (its columns changed: see {@code MysqlChangeSource}). */
  void resync(TableId table) {
    resyncs.add(table);
  }

  /** These tables were re-read (or given up on after a failed read). */
  void resynced(Collection<TableSchema> tables) {
    tables.forEach(t -> resyncs.remove(t.id()));
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
