package io.tablecast.server.postgresql;

import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.tail.InstanceWatch;
import io.tablecast.server.tail.TableLockWaits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The SQL of the PostgreSQL tail over its outbox, PgQ-style: which rows are new since a transaction
 * snapshot, how many are waiting, which may be pruned.
 */
final class PgOutboxQueries {
  private PgOutboxQueries() {}

  /**
   * The outbox rows of transactions not visible in the previous snapshot (parameters 1-3: it):
   * begun after it, or in progress then. The statement's own snapshot hides those still in
   * progress. Two index scans on txid joined by UNION ALL: an OR of the two would make the planner
   * scan the whole outbox in id order.
   *
   * <p>The first is bounded above by the statement's own snapshot too ({@code txid <
   * pg_snapshot_xmax(pg_current_snapshot())}, which every row it can see meets): a range with both
   * ends unknown to the planner is estimated at a small share of the outbox, where {@code txid >=}
   * an unknown value alone is a third. So the plan for any snapshot (a generic plan, planned once;
   * see {@link PgSessionSettings#pool}) is the same index scan as the plan for one snapshot's
   * values, instead of a bitmap scan expecting a third of the outbox.
   */
  static String newRows(String outbox) {
    return "(SELECT * FROM "
        + outbox
        + " WHERE txid >= pg_snapshot_xmax(?::pg_snapshot)"
        + " AND txid < pg_snapshot_xmax(pg_current_snapshot()) UNION ALL SELECT * FROM "
        + outbox
        + " WHERE txid = ANY(ARRAY(SELECT pg_snapshot_xip(?::pg_snapshot)))) fresh "
        + "WHERE NOT pg_visible_in_snapshot(txid, ?::pg_snapshot)";
  }

  /**
   * The database's plan for {@code readSql} (a read of {@link #newRows}) from {@code snapshot}, as
   * {@code EXPLAIN} prints it, for the warning about slow reads: what the planner estimated and
   * chose shows a read gone wrong (a scan of the whole outbox, JIT compilation).
   */
  static String readPlan(Connection c, String readSql, String outbox, String snapshot)
      throws SQLException {
    StringBuilder plan =
        new StringBuilder("The database's plan for the read (EXPLAIN; if its row estimates are far")
            .append(" from the changes a read returns, ANALYZE ")
            .append(outbox)
            .append("):");
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + readSql)) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, snapshot);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(System.lineSeparator()).append("    ").append(rs.getString(1));
        }
      }
    }
    return plan.toString();
  }

  /**
   * TRUNCATE (like a table-rewriting ALTER TABLE) is not MVCC-safe on PostgreSQL: a transaction
   * whose snapshot predates its commit and that reads the table only afterwards finds it empty. A
   * read of tables in a snapshot (the whole snapshot, a resync, a range of reconciliation) so takes
   * their ACCESS SHARE locks first: {@code LOCK} does not fix the snapshot, and once it holds the
   * locks such a command either committed before the snapshot (which sees it and its outbox row) or
   * waits until the read is over. Without the locks the read saw the rows gone before the
   * TRUNCATE's own batch, and published that as drift: mirrors empty for a moment, a state the
   * table never had. Descendants (partitions, inheritance children) are locked with their table.
   * The wait is the one the read itself would have had behind such a command.
   */
  static void lockBeforeSnapshot(Connection c, List<TableId> tables) throws SQLException {
    if (tables.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder("LOCK TABLE ");
    for (int i = 0; i < tables.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(PgIdentifiers.quote(tables.get(i)));
    }
    try (Statement s = c.createStatement()) {
      s.execute(sql.append(" IN ACCESS SHARE MODE").toString());
    }
  }

  /**
   * {@link #lockBeforeSnapshot}, each table's lock waited for at most {@link TableLockWaits#WAIT}
   * (DDL queued on a table would otherwise hold the tail, and every other table's changes, for as
   * long as the transaction it waits for stays open). Returns the first table whose lock was not
   * granted, or that the server's user may not read (its SELECT privilege revoked, which would
   * otherwise fail every read), the transaction then failed (the caller rolls it back), or null.
   */
  static Refusal lockBeforeSnapshotWithin(Connection c, List<TableId> tables, DdlLocks locks)
      throws SQLException {
    if (tables.isEmpty()) {
      return null;
    }
    limitLockWaits(c, locks);
    try (Statement s = c.createStatement()) {
      for (TableId t : tables) {
        try {
          s.execute(lockStatement(t));
        } catch (SQLException e) {
          if (locks.isLockWaitTimeout(e) || locks.isReadDenied(e)) {
            return new Refusal(t, e);
          }
          throw e;
        }
      }
    }
    liftLockWaitLimit(c);
    return null;
  }

  /**
   * From now until {@link #liftLockWaitLimit} or the end of {@code c}'s transaction, a statement
   * waits at most {@link TableLockWaits#WAIT} for a table's lock.
   */
  static void limitLockWaits(Connection c, DdlLocks locks) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(locks.limitWaits(TableLockWaits.WAIT));
    }
  }

  /** The rest of {@code c}'s transaction waits for locks as the role has it. */
  static void liftLockWaitLimit(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL lock_timeout = DEFAULT");
    }
  }

  /**
   * A table {@link #lockBeforeSnapshotWithin} could not lock, and why: a lock wait that ran out, or
   * the read denied to the server's user.
   */
  record Refusal(TableId table, SQLException cause) {}

  /** Takes {@code table}'s lock as a re-read would, waiting {@link TableLockWaits#WAIT} at most. */
  static void probeLock(Connection c, TableId table) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      // first, with the BEGIN: the role's own limit may be shorter than a pause of this client
      s.execute(PgDialect.INSTANCE.ddlLocks().limitIdleInTransaction(DdlLocks.IDLE_IN_TRANSACTION));
      s.execute(PgDialect.INSTANCE.ddlLocks().limitWaits(TableLockWaits.WAIT));
      s.execute(lockStatement(table)); // 55P03 when not granted, 42501 when not to be read
    } finally {
      c.rollback();
    }
  }

  /** The statement that takes {@code table}'s ACCESS SHARE lock (and its descendants'). */
  static String lockStatement(TableId table) {
    return "LOCK TABLE " + PgIdentifiers.quote(table) + " IN ACCESS SHARE MODE";
  }

  /**
   * The transaction snapshot the statement runs in, as text, read with the server's start time and
   * last recovery from a crash, which {@code instance} confirms ({@link InstanceWatch#confirm}: a
   * pooled connection may reach another server after a failover). It lifts the idle limit of the
   * server's role or database for the rest of the transaction too: the first statement of a poll,
   * sent with its BEGIN, so no pause of the server between the poll's statements (a loaded machine,
   * a collection) outlasts a short one, which ended the session ({@code FATAL: terminating
   * connection due to idle-in-transaction timeout}), at no extra round trip. A poll whose answer is
   * lost is given up on and its session ended by the server itself ({@code tail.LostAnswers}).
   */
  static String currentSnapshot(Connection c, InstanceWatch instance) throws SQLException {
    String snapshot;
    Instant started;
    Instant recovered;
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_current_snapshot()::text, pg_postmaster_start_time(), "
                    + RECOVERED
                    + ", set_config('idle_in_transaction_session_timeout', '0', true)")) {
      rs.next();
      snapshot = rs.getString(1);
      started = rs.getObject(2, OffsetDateTime.class).toInstant();
      OffsetDateTime reset = rs.getObject(3, OffsetDateTime.class);
      recovered = reset == null ? null : reset.toInstant();
    }
    instance.confirm(c, started, recovered);
    return snapshot;
  }

  /**
   * When the server last recovered from a crash, as {@link PgCatalogQueries#instance} reads it: the
   * reset time of {@code pg_stat_archiver}, which crash recovery resets and a restart keeps.
   */
  static final String RECOVERED = "(SELECT stats_reset FROM pg_stat_archiver)";

  /** The transaction snapshot the statement runs in, as text ({@code pg_current_snapshot()}). */
  static String currentSnapshot(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_snapshot()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The xmin of a {@code pg_snapshot}'s text ({@code xmin:xmax:xip,...}). */
  static long xmin(String snapshot) {
    return Long.parseLong(snapshot.substring(0, snapshot.indexOf(':')));
  }

  /**
   * Deletes, of the {@code limit} oldest outbox rows (by transaction, then id), those of
   * transactions older than {@code previousSnapshot}'s xmin (visible in it: delivered) and {@code
   * othersAllow}, and older than {@code retention}; returns how many.
   *
   * <p>Only the head is looked at, in the order of the outbox's primary key {@code (txid, id)} (an
   * outbox of before has an index on {@code txid}, which serves the same order): rows are prunable
   * in transaction order (a transaction whose rows are held holds every later one, and {@code
   * created_at} grows with the transactions but for the late rows of a long one, which hold the
   * head until they are old enough), so a chunk with nothing prunable ends the round. A filter over
   * the whole outbox instead, {@code ORDER BY id LIMIT n}, read every row of it whenever none was
   * old enough: the state between two rounds once the outbox holds {@code outbox_retention}'s
   * worth, 0.3-0.7 s of the database's time every five seconds at 1.5 million rows (BENCHMARKS.md,
   * 2026-12-03). Rows are deleted by their primary key, which an {@code id} alone is not.
   */
  static int prune(
      Connection c,
      String outbox,
      String previousSnapshot,
      long othersAllow,
      Duration retention,
      int limit)
      throws SQLException {
    String sql =
        "DELETE FROM "
            + outbox
            + " WHERE (txid, id) IN (SELECT txid, id FROM (SELECT id, txid, created_at FROM "
            + outbox
            + " ORDER BY txid, id LIMIT "
            + limit
            + ") head WHERE txid < pg_snapshot_xmin(?::pg_snapshot) AND txid < ?::xid8"
            + " AND created_at < clock_timestamp() - make_interval(secs => ?))";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, previousSnapshot);
      ps.setString(2, Long.toString(othersAllow));
      ps.setDouble(3, retention.toMillis() / 1000.0);
      return ps.executeUpdate();
    }
  }

  /**
   * Committed rows not visible in {@code previousSnapshot}: what the next read would return (capped
   * at 1,000,000).
   */
  static long backlog(Connection c, String outbox, String previousSnapshot) throws SQLException {
    String sql =
        "SELECT COUNT(*) FROM (SELECT 1 FROM " + newRows(outbox) + " LIMIT 1000000) pending";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, previousSnapshot);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Begins a read-only transaction; the pool's connections are REPEATABLE READ already (see
   * ChangeSources): nothing to reset on close.
   */
  static void beginRead(Connection c) throws SQLException {
    c.setAutoCommit(false);
    c.setReadOnly(true);
  }

  /**
   * {@link #beginRead}, for a read of whole tables, whose first statement, sent with the BEGIN,
   * lifts the idle limit of the server's role or database: the transaction waits while the server
   * handles the rows read, and between its first statements on a loaded machine, and a short limit
   * (50 ms) ended the session ({@code FATAL: terminating connection due to idle-in-transaction
   * timeout}), an attempt lost. {@link PgSessionSettings#tableReads} lifts it again later; by then
   * two round trips had passed under the role's limit.
   */
  static void beginWholeRead(Connection c) throws SQLException {
    beginRead(c);
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL idle_in_transaction_session_timeout = 0");
    }
  }

  static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is broken; the pool evicts it
    }
  }
}
