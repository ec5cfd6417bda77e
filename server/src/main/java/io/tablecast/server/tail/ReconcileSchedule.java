package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL/MariaDB: when to compare which cached table with its image, and what to do first when
 * the table was altered. TRUNCATE and ALTER TABLE fire no row triggers there, so every
 * {@code reconcile_interval} one table (round-robin) is read in the same consistent snapshot as
 * the outbox and the hub repairs its image from it. Owns the capture plan, which an ALTER TABLE
 * replaces when the triggers are reinstalled. Confined to the tail thread, except {@link #plan()}.
 */
final class ReconcileSchedule {
  private static final Logger LOG = LoggerFactory.getLogger(ReconcileSchedule.class);

  private volatile CapturePlan plan;
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final ServerMetrics metrics;
  private long lastReconcile;
  private int reconcileNext;
  /** Tables whose triggers are stale and were reported, with the column list reported. */
  private final Map<String, TableSchema> staleReported = new HashMap<>();

  ReconcileSchedule(CapturePlan plan, HikariDataSource pool, SourceConfig config, ServerMetrics metrics) {
    this.plan = plan;
    this.pool = pool;
    this.config = config;
    this.metrics = metrics;
  }

  CapturePlan plan() {
    return plan;
  }

  /** The snapshot just read every table: the next reconciliation is an interval away. */
  void snapshotTaken() {
    lastReconcile = System.nanoTime();
  }

  /** The table returned by {@link #due()} was read with the outbox. */
  void done() {
    lastReconcile = System.nanoTime();
  }

  /**
   * The table to reconcile in this poll (round-robin, one per {@code reconcile_interval}), or
   * null. Compares the table's catalog with the plan first. After an ALTER TABLE that kept the
   * primary key the triggers (which record only the key) still capture every change: the plan
   * takes the new column list and the rows are reconciled. When the key changed, the triggers are
   * reinstalled (with {@code install_triggers}) and the plan refreshed, or an ERROR says what to run.
   */
  TableSchema due() throws SQLException {
    Duration interval = config.reconcileInterval();
    if (interval.isZero() || System.nanoTime() - lastReconcile < interval.toNanos()) {
      return null;
    }
    List<TableSchema> tables = plan.tables();
    TableSchema known = tables.get(Math.floorMod(reconcileNext++, tables.size()));
    String name = known.id().qualified();
    TableSchema current;
    try (Connection c = pool.getConnection()) {
      current = plan.describe(c, known.id());
    } catch (RuntimeException e) {
      lastReconcile = System.nanoTime();
      LOG.error("Cannot reconcile {}: {}", name, e.getMessage());
      return null;
    }
    if (current.equals(known)) {
      staleReported.remove(name);
      return known;
    }
    if (CapturePlan.sameKey(known, current)) {
      plan = plan.withTable(current);
      LOG.warn("Table {} was altered (columns {} -> {}): reading its new columns, reconciling its rows", name,
          columnNames(known), columnNames(current));
      return current;
    }
    if (config.installTriggers()) {
      try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
        installer.describe();
        installer.install(); // creates the new triggers before dropping the stale ones
        plan = installer.plan();
      } catch (RuntimeException e) {
        lastReconcile = System.nanoTime();
        LOG.error("Table {} was altered but its capture triggers cannot be reinstalled: {}", name, e.getMessage());
        metrics.reconcileStaleTriggers(name);
        return null;
      }
      LOG.warn("Table {} was altered (columns {} -> {}): capture triggers reinstalled, reconciling its rows", name,
          columnNames(known), columnNames(current));
      for (TableSchema t : plan.tables()) {
        if (t.id().equals(known.id())) {
          return t;
        }
      }
      return null;
    }
    if (!current.equals(staleReported.get(name))) {
      staleReported.put(name, current);
      LOG.error("Table {} was altered (primary key {} -> {}) and its capture triggers are stale. Run "
          + "`tablecast install` (or set install_triggers: true) and restart the server.", name, known.primaryKey(),
          current.primaryKey());
      metrics.reconcileStaleTriggers(name);
    }
    return known;
  }

  private static List<String> columnNames(TableSchema t) {
    List<String> names = new ArrayList<>();
    t.columns().forEach(col -> names.add(col.name()));
    return names;
  }

}
