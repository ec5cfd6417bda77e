package io.tablecast.server.mysql;

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
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * MySQL/MariaDB: a read of every cached table whole, in one consistent snapshot, with the outbox
 * ids and the gap facts the tail goes on from: the start's (and each retry of it), and, while
 * serving, the one after the database changed (a failover, a restore, a restart, an outbox that
 * began again). The start's read waits for every table's metadata lock, as nothing is served before
 * every table is read; the read while serving waits for each at most {@link
 * LockedTables#WAIT_SECONDS} s and leaves a table held out ({@link LockedTables#lockForWholeRead}),
 * to be re-read beside the tail. Tail thread only.
 */
final class MysqlWholeRead {
  /**
   * One read's outcome: the database instance it read, the look at the writers and the outbox ids
   * the tail goes on from, how long lock probes wait there, and the tables it left out.
   */
  record Result(
      DatabaseInstance at,
      GapTracker.Look look,
      OutboxIdRange ids,
      Duration probeWait,
      Set<TableId> leftOut) {}

  private final WatchedConnections connections;
  private final InstanceWatch instance;
  private final Supplier<CapturePlan> plan;
  private final UnfollowedTables unfollowed;
  private final MysqlCaptureWatch captureWatch;
  private final GapFacts facts;
  private final LockedTables locks;

  MysqlWholeRead(
      WatchedConnections connections,
      InstanceWatch instance,
      Supplier<CapturePlan> plan,
      UnfollowedTables unfollowed,
      MysqlCaptureWatch captureWatch,
      GapFacts facts,
      LockedTables locks) {
    this.connections = connections;
    this.instance = instance;
    this.plan = plan;
    this.unfollowed = unfollowed;
    this.captureWatch = captureWatch;
    this.facts = facts;
    this.locks = locks;
  }

  /**
   * Reads every table not gone into {@code sink}, counting each table's rows in {@code counts};
   * {@code serving}: after the database changed, while clients are served from the images.
   */
  Result read(boolean serving, SnapshotSink sink, Map<String, Long> counts) throws SQLException {
    Set<TableId> leftOut = new HashSet<>();
    try (Connection c = connections.get();
        Statement s = c.createStatement()) {
      DatabaseInstance at = instance.identify(c);
      captureWatch.rememberTableIds(c); // before the snapshot: a TRUNCATE after it is found
      try {
        ReadSnapshots.begin(s); // failed, it is rolled back all the same: the pool cannot see it
        // After the snapshot began: holders of ids the snapshot cannot see began before this look.
        GapTracker.Look look = facts.look(c, false, null);
        List<TableSchema> tables = unfollowed.present(plan.get().tables());
        if (serving) {
          tables = locks.lockForWholeRead(c, tables, leftOut);
        }
        OutboxRows.readTables(plan.get(), tables, c, sink, counts);
        OutboxIdRange ids = OutboxIdRange.read(s, plan.get().outboxTable());
        s.execute("COMMIT");
        return new Result(at, look, ids, facts.probeWait(c), leftOut);
      } catch (SQLException | RuntimeException e) {
        ReadSnapshots.rollbackQuietly(c);
        throw e;
      }
    }
  }
}
