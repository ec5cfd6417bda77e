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
 * MySQL/MariaDB: follows an ALTER TABLE of a cached table, which fires no trigger there. Before
 * each reconciliation pass over a table ({@link DriftCheck}) the table's catalog is compared with
 * the plan; the pass then reads the table as it is now, and the hub fills in the changed columns.
 * Owns the capture plan, which an ALTER TABLE replaces. Confined to the tail thread, except
 * {@link #plan()}.
 */
final class AlteredTables implements DriftCheck.PassStart {
  private static final Logger LOG = LoggerFactory.getLogger(AlteredTables.class);

  private volatile CapturePlan plan;
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final ServerMetrics metrics;
  /** Asks for a table to be re-read whole with the next batch. */
  private final java.util.function.Consumer<io.tablecast.server.capture.TableId> resync;
  /** Tables whose triggers are stale and were reported, with the column list reported. */
  private final Map<String, TableSchema> staleReported = new HashMap<>();

  AlteredTables(CapturePlan plan, HikariDataSource pool, SourceConfig config, ServerMetrics metrics,
      java.util.function.Consumer<io.tablecast.server.capture.TableId> resync) {
    this.resync = resync;
    this.plan = plan;
    this.pool = pool;
    this.config = config;
    this.metrics = metrics;
  }

  CapturePlan plan() {
    return plan;
  }

  /**
   * Compares the table's catalog with the plan. After an ALTER TABLE that kept the primary key the
   * triggers (which record only the key) still capture every change: the plan takes the new
   * column list, the table is re-read whole with the next batch, and this pass is skipped. When the key changed, the triggers are reinstalled (with
   * {@code install_triggers}) and the plan refreshed, or an ERROR says what to run. Null when the
   * table cannot be described now (logged).
   */
  @Override
  public TableSchema begin(TableSchema known) throws SQLException {
    String name = known.id().qualified();
    TableSchema current;
    try (Connection c = pool.getConnection()) {
      current = plan.describe(c, known.id());
    } catch (RuntimeException e) {
      LOG.error("Cannot reconcile {}: {}", name, e.getMessage());
      return null;
    }
    if (current.equals(known)) {
      staleReported.remove(name);
      return known;
    }
    if (CapturePlan.sameKey(known, current)) {
      plan = plan.withTable(current);
      LOG.warn("Table {} was altered (columns {} -> {}): following its new columns and re-reading it", name,
          columnNames(known), columnNames(current));
      resync.accept(known.id()); // the new columns reach the mirrors as a resync, not as drift
      return null; // this pass gives way to the resync; the next one compares with the new columns
    }
    if (config.installTriggers()) {
      try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
        installer.describe();
        installer.install(); // creates the new triggers before dropping the stale ones
        plan = installer.plan();
      } catch (RuntimeException e) {
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
