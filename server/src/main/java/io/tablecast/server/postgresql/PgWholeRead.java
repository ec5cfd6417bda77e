package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource.SnapshotSink;
import io.tablecast.server.tail.DatabaseInstance;
import io.tablecast.server.tail.InstanceWatch;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.UnfollowedTables;
import io.tablecast.server.tail.WatchedConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * PostgreSQL: a read of every cached table whole, in one snapshot: the start's (and each retry of
 * it), and, while serving, the one after the database changed (a failover, a restore, a restart).
 * Each table is locked before the snapshot is taken and described again in it ({@link
 * PgPendingResyncs#describedForWholeRead}). The start's read waits for every lock, as nothing is
 * served before every table is read; the read while serving waits for each at most {@link
 * io.tablecast.server.tail.TableLockWaits#WAIT} and leaves a table held out ({@link
 * PgReReads#lockForWholeRead}), to be re-read beside the tail. Tail thread only.
 */
final class PgWholeRead {
  /**
   * One read's outcome: the snapshot it read in, the database instance it read, and the tables it
   * left out (while serving: their lock not granted, or their read denied).
   */
  record Result(String snapshot, DatabaseInstance at, Set<TableId> leftOut) {}

  private final WatchedConnections connections;
  private final InstanceWatch instance;
  private final Supplier<CapturePlan> plan;
  private final UnfollowedTables unfollowed;
  private final PgReReads reReads;
  private final PgPendingResyncs pending;

  /** The output settings rows are read with (see {@link PgDialect#tableReadSettings}). */
  private final String readSettings;

  PgWholeRead(
      WatchedConnections connections,
      InstanceWatch instance,
      Supplier<CapturePlan> plan,
      UnfollowedTables unfollowed,
      PgReReads reReads,
      PgPendingResyncs pending,
      String readSettings) {
    this.connections = connections;
    this.instance = instance;
    this.plan = plan;
    this.unfollowed = unfollowed;
    this.reReads = reReads;
    this.pending = pending;
    this.readSettings = readSettings;
  }

  /**
   * Reads every table not gone into {@code sink}, counting each table's rows in {@code counts};
   * {@code serving}: after the database changed, while clients are served from the images.
   */
  Result read(boolean serving, SnapshotSink sink, Map<String, Long> counts) throws SQLException {
    Set<TableId> leftOut = new HashSet<>();
    while (true) {
      try (Connection c = connections.get()) {
        DatabaseInstance at = instance.identify(c);
        PgOutboxQueries.beginWholeRead(c);
        List<TableSchema> tables = unfollowed.present(plan.get().tables());
        if (!serving) {
          PgOutboxQueries.lockBeforeSnapshot(c, tables.stream().map(TableSchema::id).toList());
        } else {
          tables = reReads.lockForWholeRead(c, tables, leftOut);
          if (tables == null) {
            continue; // one table refused: rolled back, begun again without it
          }
        }
        return new Result(inSnapshot(c, tables, sink, counts), at, leftOut);
      }
    }
  }

  /**
   * In {@code c}'s transaction, its tables locked: reads {@code tables} whole in one snapshot and
   * commits; returns the snapshot.
   */
  private String inSnapshot(
      Connection c, List<TableSchema> tables, SnapshotSink sink, Map<String, Long> counts)
      throws SQLException {
    try {
      String snapshot = PgOutboxQueries.currentSnapshot(c);
      try (Statement s = c.createStatement()) {
        s.execute(readSettings);
      }
      // as the snapshot sees them: DDL since the start's description, or on the database met
      List<TableSchema> described = pending.describedForWholeRead(c, tables);
      pending.catalogAsRead(c);
      OutboxRows.readTables(plan.get(), described, c, sink, counts);
      c.commit();
      return snapshot;
    } catch (SQLException | RuntimeException e) {
      PgOutboxQueries.rollbackQuietly(c);
      throw e;
    }
  }
}
