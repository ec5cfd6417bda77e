package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL/MariaDB: reads the outbox with single READ COMMITTED statements (one statement is one
 * consistent read, so it returns whole committed transactions) and tracks the ids it skipped
 * with a {@link GapTracker}, resolved from {@code information_schema.innodb_trx} (or, without the
 * PROCESS privilege, from lock probes), never from a timer alone.
 *
 * <p>Why a late commit delivered in a later batch keeps per-row order: a transaction that holds
 * a skipped id also holds the row locks of the rows it changed until it commits. Any other change
 * of those rows waits for that commit, so it commits later (it is never in an earlier read) and
 * takes its outbox id later (a higher id, so ORDER BY id puts it after). Changes of a row that
 * were delivered before the late transaction committed to it happened before it took the lock.
 */
final class MysqlChangeSource implements ChangeSource {
  private static final Logger LOG = LoggerFactory.getLogger(MysqlChangeSource.class);
  /** Without innodb_trx: each unresolved gap is probed at most this often, this many per poll. */
  private static final long PROBE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final int PROBES_PER_POLL = 100;
  /**
   * For the next transaction only: a consistent snapshot needs REPEATABLE READ, while the pool's
   * sessions stay READ COMMITTED, so the pool has no session state to reset when one is given back.
   */
  private static final String REPEATABLE_READ_NEXT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ";

  private final AlteredTables alteredTables;
  private final DriftCheck driftCheck;
  private final MysqlCaptureWatch captureWatch;
  /** Changed rows that could not be read, until they are (their tables are stale meanwhile). */
  private final RefusedRows refusedRows = new RefusedRows();
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final ServerMetrics metrics;
  private final Duration probeWaitOverride;
  private GapTracker gaps;
  private final LockProbe probe;
  private final OutboxPruner pruner;
  /** Published for the pruner: every outbox row below this id is delivered or rolled back. */
  private volatile long pruneBelow = 1;
  private volatile long maxDelivered;
  private volatile int openGaps;
  private boolean started;
  private boolean trxUnreadable;
  private final TrxLooks looks = new TrxLooks();
  private long backoffNanos = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * @param probeWait without innodb_trx, how long lock probes must find a skipped id neither
   *     present nor locked before it counts as rolled back; null = {@code innodb_lock_wait_timeout}
   *     + 1 s, read from the database
   */
  MysqlChangeSource(CapturePlan plan, HikariDataSource pool, SourceConfig config, Duration probeWait,
      ServerMetrics metrics) {
    this.metrics = metrics;
    this.captureWatch = new MysqlCaptureWatch(this::plan, config, metrics);
    this.alteredTables = new AlteredTables(plan, pool, config, metrics, captureWatch::resync);
    this.driftCheck = new DriftCheck(alteredTables::plan, config.reconcileInterval(), alteredTables);
    this.pool = pool;
    this.config = config;
    this.probeWaitOverride = probeWait;
    this.probe = new LockProbe(plan.dialect(), plan.outboxTable());
    this.pruner = new OutboxPruner(pool, this::pruneChunk, this::backlog, metrics, OutboxPruner.REST);
    metrics.outboxGapsGauge(() -> openGaps);
  }

  @Override
  public List<TableSchema> tables() {
    return plan().tables();
  }

  /** The capture check of this source (tests run it by hand). */
  MysqlCaptureWatch captureWatch() {
    return captureWatch;
  }

  /** The capture plan; replaced when reconciliation reinstalls the triggers after an ALTER TABLE. */
  private CapturePlan plan() {
    return alteredTables.plan();
  }

  @Override
  public void snapshot(SnapshotSink sink) throws SQLException {
    long start = System.nanoTime();
    GapTracker.Look look;
    Map<String, Long> counts = new LinkedHashMap<>();
    long total;
    long min;
    long max;
    List<Long> missing = new ArrayList<>();
    Duration probeWait;
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute(REPEATABLE_READ_NEXT); // this transaction only: nothing for the pool to reset
      s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
      try {
        // After the snapshot began: holders of ids the snapshot cannot see began before this look.
        look = look(c, false);
        total = OutboxRows.readTables(plan(), c, sink, counts);
        long count;
        try (ResultSet rs = s.executeQuery("SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0), COUNT(*) FROM "
            + plan().outboxTable())) {
          rs.next();
          min = rs.getLong(1);
          max = rs.getLong(2);
          count = rs.getLong(3);
        }
        if (count > 0 && count != max - min + 1) {
          s.setFetchSize(10_000);
          try (ResultSet rs = s.executeQuery("SELECT id FROM " + plan().outboxTable() + " ORDER BY id")) {
            long next = min;
            while (rs.next()) {
              long id = rs.getLong(1);
              for (long g = next; g < id; g++) {
                missing.add(g);
              }
              next = id + 1;
            }
          }
        }
        s.execute("COMMIT");
        probeWait = probeWait(c);
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(s);
        throw e;
      }
    }
    // Only now, the connection given back without error (closing it may fail on a killed session)
    gaps = new GapTracker(probeWait.toNanos());
    if (trxUnreadable) {
      gaps.useProbes();
    }
    gaps.start(min, max, missing, look);
    publishProgress();
    pruner.start();
    started = true;
    driftCheck.snapshotTaken();
    captureWatch.start();
    OutboxRows.logSnapshot(LOG, counts, total, start,
        "outbox ids " + min + ".." + max + ", " + gaps.gapCount() + " unresolved gaps");
  }

  @Override
  public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    if (!started) {
      throw new IllegalStateException("snapshot() must be called before poll()");
    }
    long deadline = System.nanoTime() + maxWait.toNanos();
    while (true) {
      boolean reconcile = driftCheck.prepare();
      CommittedBatch batch = readOnce(reconcile);
      if (reconcile) {
        driftCheck.published(); // only after success: a failed read reads the same range again
      }
      if (!batch.isEmpty()) {
        backoffNanos = TimeUnit.MILLISECONDS.toNanos(1); // rows: poll again at once next time
        return batch;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return CommittedBatch.EMPTY;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(remaining, backoffNanos));
      backoffNanos = Math.min(backoffNanos * 2, config.maxPollInterval().toNanos());
    }
  }

  /** The wanted outbox rows of one read: their ids, and the changed keys they name. */
  private final class OutboxRead {
    final List<Long> ids = new ArrayList<>();
    final ChangedRows changed = new ChangedRows(plan(), metrics::rowRefused);
    long captureMillis;
    int rows;
  }

  /** One consistent read of the outbox (one statement, or inside the caller's snapshot). */
  private OutboxRead readOutbox(Statement s) throws SQLException {
    OutboxRead read = new OutboxRead();
    String sql = "SELECT id, table_name, op, new_key, old_key, CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED) FROM "
        + plan().outboxTable() + " WHERE " + gaps.whereClause() + " ORDER BY id";
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        long id = rs.getLong(1);
        if (!gaps.wanted(id)) {
          continue; // the id-range form of the gap list also returns delivered rows
        }
        read.ids.add(id);
        if (read.changed.add(rs.getString(2), rs.getString(4), rs.getString(5))) {
          read.captureMillis = Math.max(read.captureMillis, rs.getLong(6));
          read.rows++;
        }
      }
    }
    return read;
  }

  /**
   * Reads the outbox once. While idle a poll is one statement; when it finds rows, the outbox is
   * read again inside a consistent snapshot and the changed rows are read in that same snapshot, so
   * the batch is every transaction it saw, whole, as of one moment. With {@code reconcile}, the
   * next key range of reconciliation is read in the snapshot too, so the image's rows of those
   * keys after this batch must equal them.
   */
  private CommittedBatch readOnce(boolean reconcile) throws SQLException {
    OutboxRead read = null;
    List<RowEvent> events = List.of();
    GapTracker.Look look = null;
    List<CommittedBatch.TableRead> tableReads = new ArrayList<>();
    List<TableSchema> resyncs = captureWatch.pendingResyncs(plan());
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      if (!reconcile && resyncs.isEmpty()) {
        read = readOutbox(s); // READ COMMITTED: one statement, one consistent read
      }
      if (reconcile || !resyncs.isEmpty() || !read.ids.isEmpty()) {
        s.execute(REPEATABLE_READ_NEXT);
        s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
        try {
          read = readOutbox(s); // again, in the snapshot the rows are read from (it may find more)
          events = readChangedRows(read.changed, c);
          for (TableSchema t : resyncs) { // capture completed by the MysqlCaptureWatch: publish what it missed
            CommittedBatch.TableRead resync = resyncRead(c, t);
            if (resync != null) {
              tableReads.add(resync);
            }
          }
          if (reconcile) { // after the resyncs: a range compares against the image they leave
            CommittedBatch.TableRead range = driftCheck.read(c);
            if (range != null) {
              tableReads.add(range);
            }
          }
          s.execute("COMMIT");
        } catch (SQLException | RuntimeException e) {
          rollbackQuietly(s);
          throw e;
        }
      }
      // After the read (order matters): the stamp of a gap seen by this read follows its id's allocation.
      if (gaps.needsLook() && looks.due()) {
        look = look(c, true);
      }
    }
    if (gaps.needsProbes()) {
      probeGaps();
    }
    int dropped = gaps.apply(read.ids, look, System.nanoTime()); // only now: errors above leave the position unchanged
    publishProgress();
    if (read.rows > 0) {
      metrics.outboxRowsRead(read.rows);
    }
    if (trxUnreadable && dropped > 0) {
      metrics.gapsExpired(dropped); // dropped on lock probes, not on innodb_trx
    }
    if (!events.isEmpty() || dropped > 0) {
      LOG.debug("Batch of {} events, max id {}, {} ids in flight, {} rolled-back ids dropped", events.size(),
          gaps.maxSeen(), gaps.gapCount(), dropped);
    }
    captureWatch.resynced(resyncs);
    return OutboxRows.batch(events, read.captureMillis, tableReads, refusedRows.after(read.changed));
  }


  /**
   * Reads the changed rows. When that fails, an ALTER TABLE may be why (a renamed or dropped
   * column fails the read, a changed type fails the conversion, and neither fires a trigger on
   * MySQL/MariaDB): the tables of the read are
   * compared with the catalog at once, rather than at their next reconciliation pass, and each
   * altered one takes its new columns and is re-read whole with the next batch. The failure
   * stands (the poll is retried, with the new columns), but it no longer stops every table's
   * changes until a restart.
   */
  private List<RowEvent> readChangedRows(ChangedRows changed, Connection c) throws SQLException {
    try {
      return changed.read(c);
    } catch (SQLException | IllegalStateException e) { // a column gone, or a value that no longer converts
      for (TableSchema known : changed.tables()) {
        alteredTables.begin(known); // an altered table is queued for its resync
      }
      throw e;
    }
  }

  /**
   * Every row of {@code table} in the current snapshot, to resync it; null when it cannot be read
   * now (e.g. the table was altered meanwhile: the outbox read stands; the resync is given up,
   * logged, and left to reconciliation).
   */
  private CommittedBatch.TableRead resyncRead(Connection c, TableSchema table) {
    try {
      return new CommittedBatch.TableRead(table, OutboxRows.readTable(plan(), c, table), CommittedBatch.Purpose.RESYNC);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Resync of {} skipped, left to reconciliation: {}", table.id().qualified(), e.getMessage());
      return null;
    }
  }

  private static void rollbackQuietly(Statement s) {
    try {
      s.execute("ROLLBACK");
    } catch (SQLException ignored) {
      // broken connection, the pool evicts it
    }
  }

  /** A look at innodb_trx on {@code c}, or null (and probes from now on) without the PROCESS privilege. */
  private GapTracker.Look look(Connection c, boolean ownTransaction) throws SQLException {
    if (trxUnreadable) {
      return null;
    }
    try {
      return looks.look(c, ownTransaction);
    } catch (SQLException e) {
      if (!TrxLooks.isAccessDenied(e)) {
        throw e;
      }
      trxUnreadable = true;
      if (gaps != null) {
        gaps.useProbes();
      }
      LOG.warn("Cannot read information_schema.innodb_trx ({}): grant PROCESS to the Tablecast user. Until then "
          + "skipped outbox ids are resolved by lock probes: an id whose row is neither present nor locked for "
          + "{} counts as rolled back (counted in tablecast.gaps.expired).", e.getMessage(), probeWait(c));
      return null;
    }
  }

  /** How long lock probes must find an id absent: longer than any insert may wait for a lock. */
  private Duration probeWait(Connection c) throws SQLException {
    if (probeWaitOverride != null) {
      return probeWaitOverride;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@GLOBAL.innodb_lock_wait_timeout")) {
      rs.next();
      return Duration.ofSeconds(rs.getLong(1) + 1);
    }
  }

  /** Without innodb_trx: probes the gaps that are due, on a connection of its own (READ COMMITTED). */
  private void probeGaps() throws SQLException {
    long now = System.nanoTime();
    List<long[]> due = gaps.idsToProbe(now, PROBE_EVERY_NANOS, PROBES_PER_POLL);
    if (due.isEmpty()) {
      return;
    }
    try (Connection c = pool.getConnection()) {
      for (long[] range : due) {
        gaps.probed(range[0], range[1], probe.probe(c, range[0], range[1]), System.nanoTime());
      }
    }
  }

  private void publishProgress() {
    pruneBelow = gaps.lowestUnresolved();
    maxDelivered = gaps.maxSeen();
    openGaps = gaps.gapCount();
  }

  /**
   * Deletes up to {@code limit} delivered rows older than the retention. Below the lowest
   * unresolved id every row is delivered; the row holding the highest delivered id always stays
   * (deleting the maximum id would let an auto-increment counter reset reuse it after a restart).
   * Ids are picked with a non-locking read, then deleted by primary key: a range DELETE would also
   * lock (and wait for) the first row beyond the range, which may belong to an open transaction.
   */
  private int pruneChunk(Connection c, int limit) throws SQLException {
    long below = pruneBelow;
    if (below <= 1) {
      return 0;
    }
    String select = "SELECT id FROM " + plan().outboxTable() + " WHERE id < ? AND created_at < NOW(6) - INTERVAL ? "
        + "MICROSECOND ORDER BY id LIMIT " + limit;
    StringJoiner ids = new StringJoiner(", ", "DELETE FROM " + plan().outboxTable() + " WHERE id IN (", ")");
    int n = 0;
    try (PreparedStatement ps = c.prepareStatement(select)) {
      ps.setLong(1, below);
      ps.setLong(2, TimeUnit.MILLISECONDS.toMicros(config.outboxRetention().toMillis()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(Long.toString(rs.getLong(1)));
          n++;
        }
      }
    }
    if (n == 0) {
      return 0;
    }
    try (Statement delete = c.createStatement()) {
      delete.executeUpdate(ids.toString());
    }
    return n;
  }

  /** Committed rows above the highest delivered id (capped: a sample, not an audit). */
  private long backlog(Connection c) throws SQLException {
    if (!started) {
      return -1;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM (SELECT id FROM " + plan().outboxTable()
        + " WHERE id > ? LIMIT 1000000) pending")) {
      ps.setLong(1, maxDelivered);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() {
    captureWatch.close();
    pruner.close();
    pool.close();
  }
}
