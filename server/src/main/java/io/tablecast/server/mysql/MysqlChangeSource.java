package io.tablecast.server.mysql;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
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
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: reads the outbox with single READ COMMITTED statements (one statement is one
 * consistent read, so it returns whole committed transactions) and tracks the ids it skipped with a
 * {@link GapTracker}, resolved from {@code information_schema.innodb_trx} (or, without the PROCESS
 * privilege, from lock probes), never from a timer alone.
 *
 * <p>Why a late commit delivered in a later batch keeps per-row order: a transaction that holds a
 * skipped id also holds the row locks of the rows it changed until it commits. Any other change of
 * those rows waits for that commit, so it commits later (it is never in an earlier read) and takes
 * its outbox id later (a higher id, so ORDER BY id puts it after). Changes of a row that were
 * delivered before the late transaction committed to it happened before it took the lock.
 */
final class MysqlChangeSource extends PollingChangeSource {
  private static final Logger LOG = RecentEvents.logger(MysqlChangeSource.class);

  private final AlteredTables alteredTables;

  /** Whether a read of every table was tried: one more is a retry, or a read while serving. */
  private boolean snapshotTried;

  private final DriftCheck driftCheck;
  private final MysqlCaptureWatch captureWatch;

  /** Changed rows that could not be read, until they are (their tables are stale meanwhile). */
  private final RefusedRows refusedRows = new RefusedRows();

  private final UnfollowedTables unfollowed = new UnfollowedTables();

  /** Tables whose metadata lock a read was not granted (DDL queued on them): read later. */
  private final LockedTables locks;

  private final HikariDataSource pool;
  private final ChangedRowStatements rowStatements;
  private final ServerMetrics metrics;
  private final GapFacts facts;
  private final MysqlOutboxPruning pruning;
  private final OutboxPosition position;
  private final ReadSnapshots snapshots = new ReadSnapshots();

  /** The read of every table whole: the start's, and the one after the database changed. */
  private final MysqlWholeRead wholeRead;

  /** The last read found rows: the next one begins in its snapshot. */
  private boolean busy;

  /**
   * @param source its {@code probeWait}: without innodb_trx, how long lock probes must find a
   *     skipped id neither present nor locked before it counts as rolled back; null = {@code
   *     innodb_lock_wait_timeout} + 1 s, read from the database
   */
  MysqlChangeSource(MysqlDialect dialect, SourceContext source) {
    super(
        source.pool(),
        source.config(),
        source.metrics(),
        source.pruneRest(),
        MysqlCatalogQueries::instance,
        dialect.sessions());
    CapturePlan plan = source.plan();
    HikariDataSource pool = source.pool();
    SourceConfig config = source.config();
    ServerMetrics metrics = source.metrics();
    this.metrics = metrics;
    this.facts =
        new GapFacts(
            watched(), new LockProbe(dialect.flavor(), plan.outboxTable()), source.probeWait());
    this.pruning = new MysqlOutboxPruning(this::plan, config.outboxRetention());
    this.position = new OutboxPosition(facts, pruning, metrics);
    this.captureWatch =
        new MysqlCaptureWatch(
            dialect, this::plan, config, metrics, unfollowed, position::lastReadId);
    this.alteredTables =
        new AlteredTables(
            plan, watched(), config, metrics, captureWatch, unfollowed, snapshots, wholeReads);
    this.driftCheck =
        new DriftCheck(
            alteredTables::plan, config.reconcileInterval(), config.answerTimeout(), alteredTables);
    this.pool = pool;
    this.rowStatements = new ChangedRowStatements(dialect.flavor());
    this.locks = new LockedTables(dialect.flavor(), pool, config.answerTimeout());
    this.wholeRead =
        new MysqlWholeRead(
            watched(), instance(), this::plan, unfollowed, captureWatch, facts, locks);
  }

  @Override
  public List<TableSchema> tables() {
    return plan().tables();
  }

  @Override
  public void resync(String table) {
    for (TableSchema t : plan().tables()) {
      if (t.id().qualified().equals(table)) {
        captureWatch.resync(t.id()); // re-read in the next poll's consistent snapshot
      }
    }
  }

  @Override
  public String lockWaits(List<TableSchema> tables) {
    return locks.describe(tables.stream().map(TableSchema::id).toList());
  }

  /** The capture check of this source (tests run it by hand). */
  MysqlCaptureWatch captureWatch() {
    return captureWatch;
  }

  /**
   * The capture plan; replaced when reconciliation reinstalls the triggers after an ALTER TABLE.
   */
  private CapturePlan plan() {
    return alteredTables.plan();
  }

  @Override
  protected void readSnapshot(SnapshotSink sink) throws SQLException {
    long start = System.nanoTime();
    Map<String, Long> counts = new LinkedHashMap<>();
    snapshots.commitHeld(); // read again after another instance was met: the old one's, if any
    boolean serving = instance().readFrom() != null;
    // read whole again (the database met may differ), or the start's read again: a column dropped
    // since the tables were described failed it ("Unknown column"), and every retry for ever
    if (serving || snapshotTried) {
      alteredTables.beforeWholeReadAgain();
    }
    snapshotTried = true;
    MysqlWholeRead.Result read = wholeRead.read(serving, sink, counts);
    // Only now, the connection given back without error (closing it may fail on a killed session)
    locks.allReadBut(read.leftOut());
    read.leftOut().forEach(captureWatch::resync); // read once it may be: stale meanwhile
    position.start(read.ids(), read.look(), read.probeWait());
    instance().positioned(read.at());
    driftCheck.snapshotTaken();
    captureWatch.start();
    OutboxRows.logSnapshot(
        LOG,
        counts,
        counts.values().stream().mapToLong(Long::longValue).sum(),
        start,
        "outbox ids "
            + read.ids().min()
            + ".."
            + read.ids().max()
            + ", "
            + position.gaps().gapCount()
            + " unresolved gaps");
  }

  @Override
  protected CommittedBatch withStaleness(CommittedBatch read) {
    List<CommittedBatch.Staleness> staleness = new ArrayList<>(locks.takeTransitions());
    staleness.addAll(captureWatch.failing().take());
    return unfollowed.attachTo(OutboxRows.batch(List.of(), 0, read.tableReads(), staleness));
  }

  @Override
  protected void readFailed() {
    // every table is stale for this: the checks' failures meanwhile are not counted
    captureWatch.failing().tailFailed();
  }

  /** Where the tail stands: the highest outbox id delivered and the gaps below it. */
  @Override
  protected String position() {
    return position.cursor();
  }

  /**
   * Reads on from {@code cursor}, an earlier run's ({@link OutboxCursor}): the outbox rows above
   * its highest id and in its gaps, the gaps settled again by the next looks.
   *
   * @throws IllegalArgumentException when {@code cursor} is not one of this source's (the caller
   *     takes a snapshot instead)
   */
  @Override
  protected void resumeAt(String cursor) throws SQLException {
    OutboxCursor at = OutboxCursor.parse(cursor);
    Duration probeWait;
    DatabaseInstance on;
    try (Connection c = pool.getConnection()) {
      on = instance().identify(c); // taken to be the cursor's: nothing tells otherwise
      captureWatch.rememberTableIds(c);
      facts.look(c, false, null); // finds out whether innodb_trx is readable
      probeWait = facts.probeWait(c);
    }
    position.resume(at, probeWait);
    instance().positioned(on);
    driftCheck.snapshotTaken();
    captureWatch.start();
    LOG.info(
        "resuming after outbox id {} with {} unresolved gaps",
        at.maxSeen(),
        position.gaps().gapCount());
  }

  /** Prunes only below {@code cursor}'s unresolved ids from now on (one too long: as before). */
  @Override
  protected void acknowledgedAt(String cursor) {
    position.acknowledged(cursor);
  }

  /**
   * Takes up the tables the capture check found altered, then reads the outbox once, with the next
   * reconciliation range when one is due.
   */
  @Override
  protected CommittedBatch readOnce() throws SQLException {
    String renumbered = captureWatch.takeOutboxRenumbered();
    if (renumbered != null) {
      LOG.warn(
          "{}: every cached table is read again whole and the mirrors get the differences",
          renumbered);
      return readWholeAgain();
    }
    alteredTables.begin(captureWatch.takeAltered()); // found by the capture check: taken up now
    return driftCheck.completed(readBatch(driftCheck.prepare()));
  }

  /** One consistent read of the outbox (one statement, or inside the caller's snapshot). */
  private OutboxRead readOutbox(Statement s, String begin, boolean askSession) throws SQLException {
    return OutboxRead.read(
        s,
        begin,
        askSession,
        plan(),
        rowStatements,
        position.gaps(),
        metrics::rowRefused,
        unfollowed::isGone,
        locks);
  }

  /**
   * Reads the outbox once. While idle a poll is one statement; when it finds rows, the outbox is
   * read again inside a consistent snapshot and the changed rows are read in that same snapshot, so
   * the batch is every transaction it saw, whole, as of one moment. While busy (the last read found
   * rows) the read begins in the snapshot, without the statement outside it. The last read's
   * snapshot, when it holds one, is committed by the first statement of this read, in the same
   * round trip ({@link ReadSnapshots}). With {@code reconcile}, the next key range of
   * reconciliation is read in the snapshot too, so the image's rows of those keys after this batch
   * must equal them.
   */
  private CommittedBatch readBatch(boolean reconcile) throws SQLException {
    Connection held = snapshots.takeHeld();
    String owed = held == null ? "" : ReadSnapshots.COMMIT; // sent with this read's first statement
    OutboxRead read = null;
    List<RowEvent> events = List.of();
    GapTracker.Look look = null;
    List<CommittedBatch.TableRead> tableReads = new ArrayList<>();
    long checked = captureWatch.failing().mark(); // followed again with the re-reads taken now
    List<TableSchema> resyncs = new ArrayList<>(captureWatch.pendingResyncs(plan()));
    resyncs.removeIf(t -> unfollowed.isGone(t.id().qualified())); // nothing there to read
    resyncs.removeIf(t -> locks.waiting(t.id())); // DDL waits on it: kept until its lock is free
    Map<TableId, String> failedResyncs = new LinkedHashMap<>();
    boolean rangeOffPath = false;
    boolean commitLater = false;
    GapTracker gaps = position.gaps();
    boolean lookDue = gaps.needsLook() && facts.lookDue();
    boolean inSnapshotFirst = reconcile || !resyncs.isEmpty() || busy || locks.readDue();
    Connection c = held == null ? reading(pool.getConnection()) : readingAgain(held);
    Statement s = null;
    try {
      s = c.createStatement();
      if (!inSnapshotFirst) {
        // READ COMMITTED: one statement, one consistent read. Its rows name the server session it
        // ran in; when it finds none, it asks now and then (a tail reading nothing finds a moved
        // connection within a second)
        read = readOutbox(s, owed, instance().checkDue());
        owed = "";
        instance().confirmSession(c, read.session);
      }
      if (inSnapshotFirst || !read.ids.isEmpty()) {
        try {
          // (again,) in the snapshot the rows are read from (it may find more); one round trip
          // whole tables are read in this snapshot too: name the session even if no row comes
          boolean tablesRead = reconcile || !resyncs.isEmpty();
          read = readOutbox(s, owed + ReadSnapshots.BEGIN, tablesRead || instance().checkDue());
          owed = "";
          // a connection the driver or a pooler moved to another server: before its rows are used
          instance().confirmSession(c, read.session);
          events = alteredTables.readChangedRows(read.changed, c);
          alteredTables.addUnkeyed(read.changed, resyncs);
          // capture completed by the MysqlCaptureWatch: publish what it missed
          tableReads.addAll(alteredTables.resyncReads(c, resyncs, locks, failedResyncs));
          if (reconcile && !locks.anyHeld()) { // a held table's image lacks its kept changes
            // after the resyncs: a range compares against the image they leave. It is read on the
            // reconciliation thread, in this transaction, which that thread commits: this batch,
            // and the changes committed meanwhile, need not wait for it (docs/BENCHMARKS.md)
            s.close(); // the connection is the reconciliation thread's from here on
            rangeOffPath = driftCheck.readOffPath(c, ReadSnapshots::commit, abandonedRanges());
          }
          if (lookDue && !rangeOffPath) {
            ReadSnapshots.commit(c); // the look below runs on c
          } else if (!rangeOffPath) {
            commitLater = true; // at the next poll, inside its pause: off the batch's path
          }
        } catch (SQLException | RuntimeException e) {
          // on a statement of its own: s is closed once a range is handed on
          ReadSnapshots.rollbackQuietly(c);
          throw e;
        }
      }
      // After the read (order matters): the stamp of a gap seen by this read follows its id's
      // allocation. (The range's open snapshot is no writer: the look counts only transactions
      // that modified rows.)
      if (lookDue) {
        if (rangeOffPath) {
          try (Connection other = reading(pool.getConnection())) {
            look = facts.look(other, true, gaps);
          }
        } else {
          look = facts.look(c, true, gaps);
        }
      }
    } finally {
      try {
        if (s != null) {
          s.close(); // no effect when closed before the range was handed on
        }
        if (!owed.isEmpty()) { // nothing was sent: the held snapshot ends here
          ReadSnapshots.rollbackQuietly(c);
        }
      } finally {
        if (commitLater) {
          snapshots.hold(c);
        } else if (!rangeOffPath) {
          c.close();
        }
      }
    }
    int dropped = position.advance(read.ids, look); // only now: errors above leave it unchanged
    if (read.rows > 0) {
      metrics.outboxRowsRead(read.rows);
    }
    if (!events.isEmpty() || dropped > 0) {
      LOG.debug(
          "Batch of {} events, max id {}, {} ids in flight, {} rolled-back ids dropped",
          events.size(),
          gaps.maxSeen(),
          gaps.gapCount(),
          dropped);
    }
    captureWatch.resynced(resyncs, failedResyncs);
    locks.after(read.changed, resyncs, failedResyncs.keySet());
    if (captureWatch
        .galera()
        .read(
            read.ids, this::tableNames, metrics::captureProblem)) { // written through another node
      plan().tables().forEach(t -> captureWatch.resync(t.id()));
    }
    busy = !read.ids.isEmpty();
    List<CommittedBatch.Staleness> staleness = new ArrayList<>(refusedRows.after(read.changed));
    staleness.addAll(locks.takeTransitions());
    staleness.addAll(captureWatch.failing().take(checked));
    return unfollowed.attachTo(OutboxRows.batch(events, read.captureMillis, tableReads, staleness));
  }

  private List<String> tableNames() {
    return plan().tables().stream().map(t -> t.id().qualified()).toList();
  }

  @Override
  protected int pruneChunk(Connection c, int limit) throws SQLException {
    return pruning.pruneChunk(c, limit);
  }

  @Override
  public java.util.OptionalLong neededFrom() {
    return pruning.neededFrom();
  }

  @Override
  protected long backlog(Connection c) throws SQLException {
    return pruning.backlog(c);
  }

  /** The database's plan for the next read of the outbox ({@link OutboxRead#plan}). */
  @Override
  protected String readPlan() {
    try (Connection c = watched().get()) {
      return OutboxRead.plan(c, plan(), position.gaps());
    } catch (SQLException e) {
      return "Its plan could not be read: " + e.getMessage();
    }
  }

  @Override
  public void close() {
    snapshots.commitHeld();
    driftCheck.close();
    captureWatch.close();
    locks.close();
    super.close();
  }
}
