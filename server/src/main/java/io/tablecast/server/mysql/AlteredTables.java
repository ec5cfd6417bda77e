package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.MissingTableException;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.DriftCheck;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.tail.UnfollowedTables;
import io.tablecast.server.tail.WatchedConnections;
import io.tablecast.server.tail.WholeReads;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: follows an ALTER TABLE of a cached table, which fires no trigger there. The
 * table's catalog is compared with the plan when the capture check finds it changed ({@link
 * MysqlCaptureWatch}, every {@code capture_check_interval}), when a read of its changed rows fails,
 * and before each reconciliation pass over it ({@link DriftCheck}). Its triggers record only the
 * primary key: after an ALTER TABLE that kept the key the plan takes the new columns and the table
 * is re-read whole with the next batch. After one that changed the key, the triggers are
 * reinstalled (with {@code install_triggers}, on the capture watch's thread, whose DDL may wait for
 * open transactions while the tail goes on with the other tables) or found reinstalled by someone
 * else before the plan takes the new key and the table is re-read; until then the table cannot be
 * followed ({@link UnfollowedTables}). Owns the capture plan, which an ALTER TABLE replaces, and
 * reads with it what an ALTER TABLE can fail: a batch's changed rows and the tables re-read whole.
 * Confined to the tail thread, except {@link #plan()}.
 */
final class AlteredTables implements DriftCheck.PassStart {
  private static final Logger LOG = RecentEvents.logger(AlteredTables.class);

  /** ER_TABLE_DEF_CHANGED: "Table definition has changed, please retry transaction". */
  private static final int TABLE_DEF_CHANGED = 1412;

  private volatile CapturePlan plan;
  private final WatchedConnections connections;
  private final SourceConfig config;
  private final ServerMetrics metrics;

  /** Re-reads a table whole with the next batch. */
  private final MysqlCaptureWatch resyncs;

  private final UnfollowedTables unfollowed;

  /**
   * The tail's held snapshot, committed before a table's catalog is read or its triggers changed.
   */
  private final ReadSnapshots snapshots;

  /** The tables re-read whole within a poll, and the one read now. */
  private final WholeReads wholeReads;

  /** Tables whose triggers are stale and were reported, with the column list reported. */
  private final Map<String, TableSchema> staleReported = new HashMap<>();

  AlteredTables(
      CapturePlan plan,
      WatchedConnections connections,
      SourceConfig config,
      ServerMetrics metrics,
      MysqlCaptureWatch resyncs,
      UnfollowedTables unfollowed,
      ReadSnapshots snapshots,
      WholeReads wholeReads) {
    this.plan = plan;
    this.connections = connections;
    this.config = config;
    this.metrics = metrics;
    this.resyncs = resyncs;
    this.unfollowed = unfollowed;
    this.snapshots = snapshots;
    this.wholeReads = wholeReads;
  }

  CapturePlan plan() {
    return plan;
  }

  /** {@link #begin} of each table of {@code tables} the plan has: found altered, taken up now. */
  void begin(Set<TableId> tables) throws SQLException {
    for (TableId id : tables) {
      for (TableSchema known : plan().tables()) { // the plan as the last begin left it
        if (known.id().equals(id)) {
          begin(known);
        }
      }
    }
  }

  /**
   * Before a whole read of every table after the database changed (a failover, a restore, a
   * restart, an outbox that began again): each table not gone is compared with its catalog, as
   * after an ALTER TABLE, since a backup's older layout or DDL that no check has seen yet may have
   * changed it. A column dropped meanwhile failed every such read, and no change of any table
   * reached the clients; one that cannot be cached as configured now is left out, stale.
   */
  void beforeWholeReadAgain() throws SQLException {
    begin(
        unfollowed.present(plan().tables()).stream()
            .map(TableSchema::id)
            .collect(Collectors.toSet()));
  }

  /**
   * Adds to {@code resyncs} each table with rows in {@code changed} that the outbox recorded with
   * an older primary key (before an ALTER TABLE): the table is read again whole.
   */
  void addUnkeyed(ChangedRows changed, List<TableSchema> resyncs) {
    for (String table : changed.unkeyed()) {
      TableSchema t = plan().normalizer(table).table();
      if (resyncs.stream().noneMatch(r -> r.id().equals(t.id()))) {
        LOG.warn("Outbox rows of {} carry its former primary key: re-reading the table", table);
        resyncs.add(t);
      }
    }
  }

  /**
   * Compares the table's catalog with the plan and follows an ALTER TABLE (see above). Returns the
   * description the reconciliation pass may read with: {@code known} when nothing changed (or the
   * change cannot be followed yet), null when the pass gives way to a resync or the table cannot be
   * described now (logged).
   */
  @Override
  public TableSchema begin(TableSchema known) throws SQLException {
    // outside any snapshot of the tail: a reinstall's DDL (on the capture watch's thread) waits for
    // every transaction that has read the table, the tail's held one too
    snapshots.commitHeld();
    String name = known.id().qualified();
    TableSchema current;
    try (Connection c = connections.get()) {
      current = plan.describe(c, known.id());
    } catch (MissingTableException e) {
      if (!unfollowed.isGone(name)) {
        LOG.error(
            "Table {} no longer exists, or the server's user can no longer see it (dropped, renamed"
                + " away, or its privileges revoked): its mirrors keep their rows and"
                + " are stale; the server reads the other tables on, and follows it again once it"
                + " exists, and is visible to it, again",
            name);
      }
      unfollowed.gone(
          known.id(),
          "table "
              + name
              + " no longer exists, or the server's user can no longer see it (dropped, renamed"
              + " away, or its privileges revoked): the mirror keeps its last rows,"
              + " and follows it again once it exists, and is visible to it, again");
      return null;
    } catch (IllegalArgumentException e) { // altered so that it cannot be cached as configured
      if (!unfollowed.isGone(name)) {
        LOG.error(UnfollowedTables.NOT_CACHEABLE_LOG, name, e.getMessage());
      }
      unfollowed.gone(known.id(), UnfollowedTables.notCacheable(name, e.getMessage()));
      return null;
    } catch (RuntimeException e) {
      LOG.error("Cannot reconcile {}: {}", name, e.getMessage());
      return null;
    }
    if (unfollowed.isGone(name)) {
      LOG.warn("Table {} exists again, as configured: re-reading it", name);
      unfollowed.back(known.id());
      resyncs.resyncAndFollow(known.id());
      return null;
    }
    if (current.equals(known)) {
      staleReported.remove(name);
      return known;
    }
    if (MysqlTriggers.sameKey(known, current)) {
      plan = plan.withTable(current);
      LOG.warn(
          "Table {} was altered (columns {} -> {}): following its new columns and re-reading it",
          name,
          columnNames(known),
          columnNames(current));
      resyncs.resync(known.id()); // the new columns reach the mirrors as a resync, not as drift
      return null; // this pass gives way to the resync; the next one compares with the new columns
    }
    String keys = known.primaryKey() + " -> " + current.primaryKey();
    if (installedFor(current)) {
      plan = plan.withTable(current);
      resyncs.newKeyTaken(known.id());
      staleReported.remove(name);
      LOG.warn(
          "Table {} was altered (primary key {}, columns {} -> {}): its capture triggers record the new key; "
              + "re-reading it",
          name,
          keys,
          columnNames(known),
          columnNames(current));
      resyncs.resyncAndFollow(known.id());
      return null;
    }
    if (config.installTriggers()) { // beside the tail: its DDL may wait for open transactions
      resyncs.reinstall(known.id());
    }
    if (!current.equals(staleReported.get(name))) {
      staleReported.put(name, current);
      if (config.installTriggers()) {
        LOG.warn(
            "Table {} was altered (primary key {}): reinstalling its capture triggers, which record"
                + " the old key; its mirrors are stale until they record the new one",
            name,
            keys);
      } else {
        LOG.error(
            "Table {} was altered (primary key {}) and its capture triggers record the old key. Run "
                + "`tablecast install` (or set install_triggers: true): the server then follows it again.",
            name,
            keys);
        metrics.reconcileStaleTriggers(name);
      }
    }
    unfollowed.cannotFollow(
        known.id(),
        "its primary key changed ("
            + keys
            + ") and its capture triggers still "
            + "record the old one"
            + (config.installTriggers()
                ? " (being reinstalled; if this lasts, see the server's log)"
                : ": run `tablecast install` (or set install_triggers: true)"));
    return null;
  }

  /**
   * A reconciliation range found the table altered: it is taken up at the next poll, outside any
   * snapshot, as the capture check's findings are ({@link #begin}, which may reinstall triggers).
   */
  @Override
  public void alteredDuringPass(TableSchema known) {
    resyncs.altered(known.id());
  }

  /**
   * Reads the changed rows. When that fails, an ALTER TABLE may be why (a renamed or dropped column
   * fails the read, a changed type fails the conversion, and neither fires a trigger on
   * MySQL/MariaDB): the tables of the read are compared with the catalog at once, rather than at
   * their next reconciliation pass, and each altered one takes its new columns and is re-read whole
   * with the next batch. The failure stands (the poll is retried, with the new columns), but it no
   * longer stops every table's changes until a restart.
   */
  List<RowEvent> readChangedRows(ChangedRows changed, Connection c) throws SQLException {
    try {
      return changed.read(c);
    } catch (SQLException
        | IllegalStateException e) { // a column gone, or a value that no longer converts
      ReadSnapshots.rollbackQuietly(c); // the comparison below may have triggers reinstalled
      for (TableSchema known : changed.tables()) {
        begin(known); // an altered table is queued for its resync
      }
      throw e;
    }
  }

  /**
   * Every row of each of {@code resyncs} in {@code c}'s snapshot ({@link #resyncRead}): a table
   * whose metadata lock is not granted now is left out of {@code resyncs}, and so stays queued
   * until it is ({@link LockedTables#lockFor}), as does one altered since the snapshot began; one
   * that cannot be read is added to {@code failed} with why, and compared with the catalog at the
   * next read (an ALTER TABLE the capture check has not seen yet: re-read then with its new
   * columns).
   */
  List<CommittedBatch.TableRead> resyncReads(
      Connection c, List<TableSchema> resyncs, LockedTables locks, Map<TableId, String> failed) {
    List<CommittedBatch.TableRead> reads = new ArrayList<>();
    for (TableSchema t : List.copyOf(resyncs)) {
      if (!locks.lockFor(c, t.id())) {
        resyncs.remove(t);
        continue;
      }
      try {
        reads.add(resyncRead(c, t));
      } catch (SQLException | RuntimeException e) {
        if (e instanceof SQLException s && s.getErrorCode() == TABLE_DEF_CHANGED) {
          // DDL (a partition added or emptied, the table rebuilt) committed after this snapshot
          // began: the next read, in a snapshot of its own, reads it. Given up, the partition
          // maintenance that asked for it reached the mirrors only through reconciliation
          LOG.info("Resync of {} read again: {}", t.id().qualified(), e.getMessage());
          resyncs.remove(t);
        } else {
          // an ALTER TABLE may be why (a column dropped or renamed): compared with the catalog at
          // the next read, which then re-reads it with its new columns
          LOG.warn(
              "Resync of {} failed ({}): the table is stale, compared with the catalog at the next"
                  + " read and read again at the next capture check",
              t.id().qualified(),
              e.getMessage());
          this.resyncs.altered(t.id()); // the capture watch
          failed.put(t.id(), e.getMessage());
        }
      }
    }
    return reads;
  }

  /** Every row of {@code table} in the current snapshot, to resync it. */
  CommittedBatch.TableRead resyncRead(Connection c, TableSchema table) throws SQLException {
    return new CommittedBatch.TableRead(
        table, OutboxRows.readTable(plan, c, table, wholeReads), CommittedBatch.Purpose.RESYNC);
  }

  /** True when the installed capture of {@code table} is current for it (someone ran install). */
  private boolean installedFor(TableSchema table) throws SQLException {
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      return installer.installProblems(List.of(table)).isEmpty();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static List<String> columnNames(TableSchema t) {
    List<String> names = new ArrayList<>();
    t.columns().forEach(col -> names.add(col.name()));
    return names;
  }
}
