package io.tablecast.server.postgresql;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.PruningHold;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.DatabaseInstance;
import io.tablecast.server.tail.DriftCheck;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.PollingChangeSource;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.tail.SourceContext;
import io.tablecast.server.tail.TableLockWaits;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * PostgreSQL, PgQ-style: a batch holds exactly the transactions that became visible between two
 * snapshots ({@code pg_current_snapshot()}). Each outbox row carries its transaction's xid8; rows
 * visible now but not in the previous snapshot are the new ones. Exact: no timeouts, no
 * head-of-line blocking by long transactions. Polls adaptively: at once again after a read that
 * found rows, pausing as {@code PollSchedule} says while idle. (No LISTEN/NOTIFY: a notifying
 * writer takes a cluster-wide lock through its commit, which serializes all capturing writers; see
 * {@code sql/triggers/postgresql/outbox.sql}.)
 *
 * <p>A read looks only at transactions that were in progress in the previous snapshot or began
 * after it ({@code xip} and {@code >= xmax}, as PgQ does), so a long transaction does not make
 * every read scan all rows committed since it began.
 */
final class PgChangeSource extends PollingChangeSource {
  private static final Logger LOG = RecentEvents.logger(PgChangeSource.class);

  /** Replaced when a cached table's columns change ({@link PgColumnChanges}). */
  private volatile CapturePlan plan;

  private final PgDialect dialect;
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final String readSql;
  private final ServerMetrics metrics;
  private final PgCaptureWatch watch;
  private final DriftCheck driftCheck;
  private final PgOutboxEvents outboxEvents;
  private final PgSingleStatementRead singleStatementRead;

  /** Tables whose lock a re-read or range was not granted (DDL queued on them): read later. */
  private final TableLockWaits lockWaits;

  private final UnfollowedTables unfollowed = new UnfollowedTables();

  /** Tables to re-read, or to describe again, in the next read's snapshot. */
  private final PgPendingResyncs pendingResyncs;

  /** What one read re-reads whole, and the locks that takes. */
  private final PgReReads reReads;

  /** The read of every table whole: the start's, and the one after the database changed. */
  private final PgWholeRead wholeRead;

  private long watchFailedLoggedNanos;
  private volatile String previousSnapshot;

  /** Where pruning stops: what was read, or what a downstream stream acknowledged. */
  private final PgPruning pruning = new PgPruning();

  PgChangeSource(PgDialect dialect, SourceContext source) {
    super(
        source.pool(),
        source.config(),
        source.metrics(),
        source.pruneRest(),
        PgCatalogQueries::instance,
        dialect.sessions());
    CapturePlan plan = source.plan();
    HikariDataSource pool = source.pool();
    SourceConfig config = source.config();
    ServerMetrics metrics = source.metrics();
    this.dialect = dialect;
    this.plan = plan;
    this.pool = pool;
    this.config = config;
    this.readSql =
        "SELECT id, table_name, op, new_row::text, old_row::text, "
            + "(extract(epoch FROM created_at) * 1000)::bigint FROM "
            + PgOutboxQueries.newRows(plan.outboxTable())
            + " ORDER BY id";
    this.metrics = metrics;
    this.watch = new PgCaptureWatch(plan, watched(), config, metrics, unfollowed);
    PgColumnChanges columnChanges =
        new PgColumnChanges(
            () -> this.plan, p -> this.plan = p, unfollowed, config.captureCheckInterval());
    this.outboxEvents = new PgOutboxEvents(() -> this.plan, columnChanges);
    this.singleStatementRead = new PgSingleStatementRead(readSql, () -> this.plan);
    this.pendingResyncs = new PgPendingResyncs(() -> this.plan, columnChanges, unfollowed);
    // this.plan, the field: ALTER TABLE replaces it
    this.driftCheck =
        new DriftCheck(
            () -> this.plan, config.reconcileInterval(), config.answerTimeout(), pendingResyncs);
    this.lockWaits =
        new TableLockWaits(
            pool, dialect.ddlLocks(), PgOutboxQueries::probeLock, config.answerTimeout());
    this.reReads =
        new PgReReads(() -> this.plan, pendingResyncs, lockWaits, dialect.ddlLocks(), wholeReads);
    this.wholeRead =
        new PgWholeRead(
            watched(),
            instance(),
            () -> this.plan,
            unfollowed,
            reReads,
            pendingResyncs,
            dialect.tableReadSettings());
  }

  @Override
  public List<TableSchema> tables() {
    return plan.tables();
  }

  @Override
  public String lockWaits(List<TableSchema> tables) {
    return lockWaits.describe(tables.stream().map(TableSchema::id).toList());
  }

  @Override
  public void resync(String table) {
    pendingResyncs.add(
        table); // re-read in the next poll's snapshot; a name not cached is skipped there
  }

  @Override
  protected void readSnapshot(SnapshotSink sink) throws SQLException {
    long start = System.nanoTime();
    Map<String, Long> counts = new LinkedHashMap<>();
    watch.check(); // learns the partitions and children first: any that come after are re-read
    PgWholeRead.Result read = wholeRead.read(previousSnapshot != null, sink, counts);
    // Only now, the connection given back without error: closing it may fail too (a killed session)
    previousSnapshot = read.snapshot();
    lockWaits.allReleasedBut(read.leftOut()); // read whole; those left out wait on
    instance().positioned(read.at());
    pruning.acknowledged(null); // one acknowledged on another instance means nothing here
    driftCheck.snapshotTaken();
    OutboxRows.logSnapshot(
        LOG,
        counts,
        counts.values().stream().mapToLong(Long::longValue).sum(),
        start,
        "pg_snapshot " + read.snapshot());
  }

  @Override
  protected CommittedBatch withStaleness(CommittedBatch read) {
    return unfollowed.attachTo(
        OutboxRows.batch(List.of(), 0, read.tableReads(), lockWaits.takeTransitions()));
  }

  /** The snapshot after the last read: the transactions visible in it were all read. */
  @Override
  protected String position() {
    return previousSnapshot;
  }

  /** Reads on from {@code cursor}, a {@code pg_snapshot} an earlier run read up to. */
  @Override
  protected void resumeAt(String cursor) throws SQLException {
    watch.check(); // learns the partitions and children, as a snapshot does
    DatabaseInstance on;
    try (Connection c = pool.getConnection()) {
      on = instance().identify(c); // taken to be the cursor's: nothing tells otherwise
    }
    instance().positioned(on);
    previousSnapshot = cursor;
    pruning.acknowledged(cursor);
    driftCheck.snapshotTaken();
    LOG.info("resuming after pg_snapshot {}", cursor);
  }

  @Override
  protected void acknowledgedAt(String snapshot) {
    pruning.acknowledged(snapshot);
  }

  /** Runs the capture watch when due, then reads once. */
  @Override
  protected CommittedBatch readOnce() throws SQLException {
    followCapture();
    return unfollowed.attachTo(driftCheck.completed(readInSnapshot()));
  }

  /**
   * Runs the capture watch when due. Its failure (a catalog query) must not stop the changes from
   * flowing: it is logged (at most once a minute) and tried again at the next poll.
   */
  private void followCapture() {
    try {
      pendingResyncs.addAll(watch.runIfDue());
    } catch (SQLException | RuntimeException e) {
      if (System.nanoTime() - watchFailedLoggedNanos > TimeUnit.MINUTES.toNanos(1)
          || watchFailedLoggedNanos == 0) {
        watchFailedLoggedNanos = System.nanoTime();
        LOG.warn(
            "Checking the capture triggers, partitions and children of the cached tables failed (changes keep "
                + "flowing; retrying): {}",
            e.toString());
      }
    }
  }

  private CommittedBatch readInSnapshot() throws SQLException {
    boolean checkDrift = driftCheck.prepare();
    if (checkDrift
        && (watch.readsFiltered(driftCheck.table().id())
            || unfollowed.isGone(driftCheck.table().id().qualified())
            || lockWaits.waiting(driftCheck.table().id()))) {
      checkDrift = false; // row-level security, gone, or DDL queued: its ranges wait
    }
    if (!checkDrift && pendingResyncs.nothingDue()) {
      CommittedBatch batch = readInOneStatement();
      if (batch != null) {
        return batch;
      }
    }
    String current;
    List<RowEvent> events = new ArrayList<>();
    PgReReads.Read resync = reReads.begin();
    List<CommittedBatch.TableRead> reads;
    long captureMillis;
    boolean rangeOffPath = false;
    List<TableId> toRead = new ArrayList<>(); // whose locks this read takes
    if (checkDrift) {
      toRead.add(driftCheck.table().id());
    }
    toRead.addAll(resync.toLock());
    Connection c = reading(pool.getConnection());
    try {
      if (toRead.isEmpty()) {
        PgOutboxQueries.beginRead(c);
      } else { // a table or a range read in this transaction: no idle limit of the role's
        PgOutboxQueries.beginWholeRead(c);
      }
      try {
        PgOutboxQueries.Refusal refused =
            PgOutboxQueries.lockBeforeSnapshotWithin(c, toRead, dialect.ddlLocks());
        if (refused != null) { // the transaction failed: nothing was read in it
          PgOutboxQueries.rollbackQuietly(c);
          lockWaits.holdWholeRead(
              refused.table(), resync.reReads(refused.table()), refused.cause());
          return OutboxRows.batch(List.of(), 0, List.of(), lockWaits.takeTransitions());
        }
        // LOCK fixes no snapshot; the first query does, and the read below runs in it
        current = PgOutboxQueries.currentSnapshot(c, instance());
        // before the rows are read, in this snapshot
        pendingResyncs.describeAltered(c, resync.tables);
        if (current.equals(previousSnapshot) && resync.tables.isEmpty() && !checkDrift) {
          c.commit(); // same visible set of transactions: nothing new but a table held stale
          List<CommittedBatch.Staleness> held = lockWaits.takeTransitions();
          return held.isEmpty()
              ? CommittedBatch.EMPTY
              : OutboxRows.batch(List.of(), 0, List.of(), held);
        }
        // a partition or child truncated (a re-read mark): its table may have changed shape too
        captureMillis =
            outboxEvents.readAfter(
                c, readSql, previousSnapshot, resync.tables, events, watch::suspectChange);
        if (!resync.tables.isEmpty() || checkDrift) {
          readSettings(c);
        }
        reads = resync.read(c);
        if (reads == null) { // a table it found in this snapshot waits for its lock: read again
          return OutboxRows.batch(List.of(), 0, List.of(), lockWaits.takeTransitions());
        }
        if (checkDrift && !watch.unchangedSinceCheck(c, driftCheck.table().id())) {
          // a partition or child joined or left, or a trigger changed, and the watch has not
          // re-read the table yet: what the range would find is that resync's work, not drift. The
          // watch looks at once; the same range is read at the next poll.
          checkDrift = false;
          watch.suspectChange();
        }
        if (checkDrift) {
          // after the resyncs: a range compares against the image they leave. It is read on the
          // reconciliation thread, in this transaction, which that thread ends: this batch, and
          // the changes committed meanwhile, need not wait for it (docs/BENCHMARKS.md)
          rangeOffPath = driftCheck.readOffPath(c, Connection::commit, abandonedRanges());
        }
        if (!rangeOffPath) {
          c.commit();
        }
      } catch (SQLException | RuntimeException e) {
        PgOutboxQueries.rollbackQuietly(c);
        throw e;
      }
    } finally {
      if (!rangeOffPath) {
        c.close();
      }
    }
    // Only after the connection was given back without error: closing it (the pool resets its
    // session) fails on a killed session, and then this read must count as not done.
    previousSnapshot = current;
    resync.done();
    toRead.forEach(lockWaits::released); // read: none of them waits any more
    if (!events.isEmpty()) {
      metrics.outboxRowsRead(events.size());
      LOG.debug("Batch of {} events up to snapshot {}", events.size(), current);
    }
    return OutboxRows.batch(events, captureMillis, reads, lockWaits.takeTransitions());
  }

  /** Tests: the one-statement read of this source's outbox. */
  PgSingleStatementRead singleStatementRead() {
    return singleStatementRead;
  }

  /**
   * The common read, nothing else due in its snapshot, in one round trip ({@link
   * PgSingleStatementRead}); null when its rows need the read in a transaction.
   */
  private CommittedBatch readInOneStatement() throws SQLException {
    PgSingleStatementRead.Result read;
    try (Connection c = reading(pool.getConnection())) {
      c.setAutoCommit(true);
      read = singleStatementRead.read(c, previousSnapshot, instance().checkDue());
      if (read != null) {
        // a pooled connection may reach another server, or the same one recovered from a crash
        instance().confirm(c, read.started(), read.recovered());
      }
    }
    if (read == null) {
      return null;
    }
    previousSnapshot = read.snapshot(); // the connection given back without error, as below
    if (!read.events().isEmpty()) {
      metrics.outboxRowsRead(read.events().size());
      LOG.debug("Batch of {} events up to snapshot {}", read.events().size(), read.snapshot());
    }
    return OutboxRows.batch(read.events(), read.captureMillis(), List.of());
  }

  /**
   * Deletes delivered outbox rows past the retention ({@link PgOutboxQueries#prune}) that no other
   * live server still needs ({@link PruningHold}).
   */
  @Override
  protected int pruneChunk(Connection c, int limit) throws SQLException {
    return pruning.pruneChunk(c, plan, config.outboxRetention(), previousSnapshot, limit);
  }

  @Override
  protected String readPlan() {
    try (Connection c = watched().get()) {
      return PgOutboxQueries.readPlan(c, readSql, plan.outboxTable(), previousSnapshot);
    } catch (SQLException e) {
      return "Its plan could not be read: " + e.getMessage();
    }
  }

  /** The xmin of the snapshot pruning stops at: transactions from it on may still be read. */
  @Override
  public OptionalLong neededFrom() {
    return pruning.neededFrom(previousSnapshot);
  }

  /** Committed rows the tail has not read yet (capped). */
  @Override
  protected long backlog(Connection c) throws SQLException {
    return PgOutboxQueries.backlog(c, plan.outboxTable(), previousSnapshot);
  }

  @Override
  public void close() {
    watch.close();
    driftCheck.close();
    lockWaits.close();
    super.close();
  }

  /**
   * The output settings the pinned capture function writes with (see PgTriggers): rows read print
   * the same.
   */
  private void readSettings(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(dialect.tableReadSettings());
    }
  }
}
