package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL, PgQ-style: a batch holds exactly the transactions that became visible between two
 * snapshots ({@code pg_current_snapshot()}). Each outbox row carries its transaction's xid8; rows
 * visible now but not in the previous snapshot are the new ones. Exact: no timeouts, no
 * head-of-line blocking by long transactions. Polls adaptively: at once again after a read that
 * found rows, backing off from 1 ms to {@code max_poll_interval} while idle. (No LISTEN/NOTIFY: a
 * notifying writer takes a cluster-wide lock through its commit, which serializes all capturing
 * writers; see {@code sql/triggers/postgresql/outbox.sql}.)
 *
 * <p>A read looks only at transactions that were in progress in the previous snapshot or began
 * after it ({@code xip} and {@code >= xmax}, as PgQ does), so a long transaction does not make
 * every read scan all rows committed since it began.
 */
final class PgChangeSource implements ChangeSource {
  private static final Logger LOG = LoggerFactory.getLogger(PgChangeSource.class);

  /** Replaced when a cached table's columns change ({@link PgColumnChanges}). */
  private volatile CapturePlan plan;
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final String readSql;
  private final OutboxPruner pruner;
  private final ServerMetrics metrics;
  private final PgCaptureWatch watch;
  private final DriftCheck driftCheck;
  private final PgColumnChanges columnChanges = new PgColumnChanges(() -> plan, p -> plan = p);
  /** Tables the watch asked to re-read, in the next read's snapshot. */
  private final Set<String> pendingResyncs = new LinkedHashSet<>();
  private long watchFailedLoggedNanos;
  private volatile String previousSnapshot;
  private long backoffNanos = TimeUnit.MILLISECONDS.toNanos(1);

  PgChangeSource(CapturePlan plan, HikariDataSource pool, SourceConfig config, ServerMetrics metrics) {
    this.plan = plan;
    this.pool = pool;
    this.config = config;
    this.readSql = "SELECT id, table_name, op, new_row::text, old_row::text, "
        + "(extract(epoch FROM created_at) * 1000)::bigint FROM " + newRows(plan.outboxTable()) + " ORDER BY id";
    this.pruner = new OutboxPruner(pool, this::pruneChunk, this::backlog, metrics, OutboxPruner.REST);
    this.metrics = metrics;
    this.watch = new PgCaptureWatch(plan, pool, config, metrics);
    this.driftCheck = new DriftCheck(() -> this.plan, config.reconcileInterval(), known -> known); // the field: ALTER TABLE replaces it
  }

  /**
   * The outbox rows of transactions not visible in the previous snapshot (parameters 1-3: it):
   * begun after it, or in progress then. The statement's own snapshot hides those still in
   * progress. Two index scans on txid joined by UNION ALL: an OR of the two would make the planner
   * scan the whole outbox in id order.
   */
  private static String newRows(String outbox) {
    return "(SELECT * FROM " + outbox + " WHERE txid >= pg_snapshot_xmax(?::pg_snapshot) UNION ALL SELECT * FROM "
        + outbox + " WHERE txid = ANY(ARRAY(SELECT pg_snapshot_xip(?::pg_snapshot)))) fresh "
        + "WHERE NOT pg_visible_in_snapshot(txid, ?::pg_snapshot)";
  }

  @Override
  public List<TableSchema> tables() {
    return plan.tables();
  }

  @Override
  public void snapshot(SnapshotSink sink) throws SQLException {
    long start = System.nanoTime();
    String snapshot;
    Map<String, Long> counts = new LinkedHashMap<>();
    long total;
    watch.check(); // learns the partitions and children first: any that come after are re-read
    try (Connection c = pool.getConnection()) {
      begin(c);
      try {
        snapshot = currentSnapshot(c);
        readSettings(c);
        total = OutboxRows.readTables(plan, c, sink, counts);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c);
        throw e;
      }
    }
    // Only now, the connection given back without error: closing it may fail too (a killed session)
    previousSnapshot = snapshot;
    driftCheck.snapshotTaken();
    pruner.start();
    OutboxRows.logSnapshot(LOG, counts, total, start, "pg_snapshot " + snapshot);
  }

  @Override
  public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    if (previousSnapshot == null) {
      throw new IllegalStateException("snapshot() must be called before poll()");
    }
    long deadline = System.nanoTime() + maxWait.toNanos();
    while (true) {
      followCapture();
      CommittedBatch batch = readOnce();
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

  /**
   * Runs the capture watch when due. Its failure (a catalog query) must not stop the changes
   * from flowing: it is logged (at most once a minute) and tried again at the next poll.
   */
  private void followCapture() {
    try {
      pendingResyncs.addAll(watch.runIfDue());
    } catch (SQLException | RuntimeException e) {
      if (System.nanoTime() - watchFailedLoggedNanos > TimeUnit.MINUTES.toNanos(1) || watchFailedLoggedNanos == 0) {
        watchFailedLoggedNanos = System.nanoTime();
        LOG.warn("Checking the capture triggers, partitions and children of the cached tables failed (changes keep "
            + "flowing; retrying): {}", e.toString());
      }
    }
  }

  private CommittedBatch readOnce() throws SQLException {
    String current;
    List<RowEvent> events = new ArrayList<>();
    Set<String> resync = new LinkedHashSet<>(pendingResyncs);
    List<CommittedBatch.TableRead> reads = new ArrayList<>();
    boolean checkDrift = driftCheck.prepare();
    long captureMillis = 0;
    try (Connection c = pool.getConnection()) {
      begin(c);
      try {
        // The first statement fixes the transaction's snapshot: the read below runs in it.
        current = currentSnapshot(c);
        if (current.equals(previousSnapshot) && resync.isEmpty() && !checkDrift) {
          c.commit();
          return CommittedBatch.EMPTY; // same visible set of transactions: nothing new
        }
        try (PreparedStatement ps = c.prepareStatement(readSql)) {
          for (int i = 1; i <= 3; i++) {
            ps.setString(i, previousSnapshot);
          }
          ps.setFetchSize(1000);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              if (RowEvent.RESYNC_CODE.equals(rs.getString(3).trim())) {
                if (plan.normalizer(rs.getString(2)) != null) {
                  resync.add(rs.getString(2));
                  captureMillis = Math.max(captureMillis, rs.getLong(6));
                  watch.suspectChange(); // a partition or child truncated: its table may have changed shape too
                }
                continue;
              }
              RowEvent e = event(c, rs, resync);
              if (e != null) {
                events.add(e);
                captureMillis = Math.max(captureMillis, rs.getLong(6));
              }
            }
          }
        }
        if (!resync.isEmpty() || checkDrift) {
          readSettings(c);
        }
        for (String table : resync) { // in the same snapshot: the image after the events must equal it
          if (plan.normalizer(table) == null) {
            continue;
          }
          TableSchema t = plan.normalizer(table).table();
          reads.add(new CommittedBatch.TableRead(t, OutboxRows.readTable(plan, c, t), CommittedBatch.Purpose.RESYNC));
        }
        if (checkDrift && !watch.unchangedSinceCheck(c, driftCheck.table().id())) {
          // a partition or child joined or left, or a trigger changed, and the watch has not re-read
          // the table yet: what the range would find is that resync's work, not drift. The watch
          // looks at once; the same range is read at the next poll.
          checkDrift = false;
          watch.suspectChange();
        }
        if (checkDrift) { // after the resyncs: a chunk compares against the image they leave
          CommittedBatch.TableRead chunk = driftCheck.read(c);
          if (chunk != null) {
            reads.add(chunk);
          }
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c);
        throw e;
      }
    }
    // Only after the connection was given back without error: closing it (the pool resets its
    // session) fails on a killed session, and then this read must count as not done.
    previousSnapshot = current;
    pendingResyncs.clear();
    if (checkDrift) {
      driftCheck.published();
    }
    if (!events.isEmpty()) {
      metrics.outboxRowsRead(events.size());
      LOG.debug("Batch of {} events up to snapshot {}", events.size(), current);
    }
    return OutboxRows.batch(events, captureMillis, reads);
  }

  /** Deletes rows of transactions older than the previous snapshot's xmin (visible in it: delivered). */
  private int pruneChunk(Connection c, int limit) throws SQLException {
    String sql = "DELETE FROM " + plan.outboxTable() + " WHERE id IN (SELECT id FROM " + plan.outboxTable()
        + " WHERE txid < pg_snapshot_xmin(?::pg_snapshot) AND created_at < clock_timestamp() - make_interval(secs => ?)"
        + " ORDER BY id LIMIT " + limit + ")";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, previousSnapshot);
      ps.setDouble(2, config.outboxRetention().toMillis() / 1000.0);
      return ps.executeUpdate();
    }
  }

  /** Committed rows the tail has not read yet: what the next read would return (capped). */
  private long backlog(Connection c) throws SQLException {
    String sql = "SELECT COUNT(*) FROM (SELECT 1 FROM " + newRows(plan.outboxTable()) + " LIMIT 1000000) pending";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      String previous = previousSnapshot;
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, previous);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The pool's connections are REPEATABLE READ already (see ChangeSources): nothing to reset on close. */
  private static void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
    c.setReadOnly(true);
  }

  /** The output settings the pinned capture function writes with (see PgTriggers): rows read print the same. */
  private void readSettings(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : plan.tableReadSettings()) {
        s.execute(sql);
      }
    }
  }

  private static String currentSnapshot(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * One outbox row as an event; null for a table another server caches. Its images are parsed
   * once, and the parsed image also tells {@link PgColumnChanges} whether the table's columns
   * changed (ALTER TABLE): then the table joins {@code resync} (re-read in this snapshot with the
   * new columns) and the row is read with them.
   */
  private RowEvent event(Connection c, ResultSet rs, Set<String> resync) throws SQLException {
    String table = rs.getString(2);
    RowNormalizer n = plan.normalizer(table);
    if (n == null) {
      return null;
    }
    String code = rs.getString(3).trim();
    JsonNode after = parse(n, rs.getString(4));
    JsonNode before = parse(n, rs.getString(5));
    if (columnChanges.changed(c, n.table(), after != null ? after : before)) {
      resync.add(table);
      n = plan.normalizer(table);
    }
    try {
      return OutboxRows.event(table, code, n, after, before);
    } catch (IllegalStateException conversion) { // a value that no longer fits its column's type
      if (!columnChanges.describedAgain(c, n.table())) {
        throw conversion;
      }
      resync.add(table);
      return OutboxRows.event(table, code, plan.normalizer(table), after, before);
    }
  }

  private static JsonNode parse(RowNormalizer n, String image) {
    return image == null ? null : n.parse(image);
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is broken; the pool evicts it
    }
  }

  @Override
  public void close() {
    pruner.close();
    pool.close();
  }
}
