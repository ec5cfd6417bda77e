package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.PruningHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * MySQL/MariaDB: what the outbox pruner deletes ({@link MysqlChangeSource#pruneChunk}), by the
 * tail's progress. The tail publishes its progress after each read ({@link #progress}); the
 * pruner's thread deletes below it and samples the backlog above it.
 */
final class MysqlOutboxPruning {

  private final Supplier<CapturePlan> plan;
  private final Duration retention;

  /** Every outbox row below this id is delivered or rolled back. */
  private volatile long pruneBelow = 1;

  /**
   * Every outbox row below this id is stored downstream (a NATS stream acknowledged the cursor);
   * {@link Long#MAX_VALUE} while nothing was acknowledged (a single server: no downstream).
   */
  private volatile long acknowledgedBelow = Long.MAX_VALUE;

  private final PruningHold hold = new PruningHold();

  private volatile long maxDelivered;
  private volatile boolean started;

  MysqlOutboxPruning(Supplier<CapturePlan> plan, Duration retention) {
    this.plan = plan;
    this.retention = retention;
  }

  /**
   * The tail's progress: every id below {@code lowestUnresolved} is settled; {@code maxSeen} is
   * delivered.
   */
  void progress(long lowestUnresolved, long maxSeen) {
    pruneBelow = lowestUnresolved;
    maxDelivered = maxSeen;
    started = true;
  }

  /**
   * A downstream stream stored everything up to a cursor whose lowest unresolved id is {@code
   * lowestUnresolved}: from now on nothing at or above it is pruned, even when the tail has read
   * further, so that a capture resuming after that cursor finds every row it needs.
   */
  void acknowledged(long lowestUnresolved) {
    acknowledgedBelow = lowestUnresolved;
  }

  /**
   * The lowest outbox id this server may still read (what it prunes below), empty before its first
   * read.
   */
  OptionalLong neededFrom() {
    return started
        ? OptionalLong.of(Math.min(pruneBelow, acknowledgedBelow))
        : OptionalLong.empty();
  }

  /**
   * Deletes, of the {@code limit} oldest delivered rows, those older than the retention; returns
   * how many. Below the lowest unresolved id every row is delivered; the row holding the highest
   * delivered id always stays (deleting the maximum id would let an auto-increment counter reset
   * reuse it after a restart). Ids are picked with a non-locking read, then deleted by primary key:
   * a range DELETE would also lock (and wait for) the first row beyond the range, which may belong
   * to an open transaction.
   */
  int pruneChunk(Connection c, int limit) throws SQLException {
    CapturePlan p = plan.get();
    long own = Math.min(pruneBelow, acknowledgedBelow);
    long below =
        Math.min(
            own, hold.othersAllow(c, p.dialect(), p.outboxSchema(), own)); // others not read yet
    if (below <= 1) {
      return 0;
    }
    // the head only, as on PostgreSQL (PgOutboxQueries.prune): filtered over the whole outbox,
    // a round that found nothing old enough read every delivered row
    String select =
        "SELECT id FROM (SELECT id, created_at FROM "
            + plan.get().outboxTable()
            + " WHERE id < ? ORDER BY id LIMIT "
            + limit
            + ") head WHERE created_at < NOW(6) - INTERVAL ? MICROSECOND";
    StringJoiner ids =
        new StringJoiner(", ", "DELETE FROM " + plan.get().outboxTable() + " WHERE id IN (", ")");
    int n = 0;
    try (PreparedStatement ps = c.prepareStatement(select)) {
      ps.setLong(1, below);
      ps.setLong(2, TimeUnit.MILLISECONDS.toMicros(retention.toMillis()));
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
  long backlog(Connection c) throws SQLException {
    if (!started) {
      return -1; // no progress published yet
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COUNT(*) FROM (SELECT id FROM "
                + plan.get().outboxTable()
                + " WHERE id > ? LIMIT 1000000) pending")) {
      ps.setLong(1, maxDelivered);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
