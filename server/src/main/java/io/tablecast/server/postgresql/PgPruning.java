package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.PruningHold;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Where the PostgreSQL tail's pruning of the outbox stops: the snapshot it read up to or, when a
 * downstream stream acknowledges what it published ({@code tablecast capture}), the last snapshot
 * acknowledged; and below what any other live server on the outbox still needs ({@link
 * PruningHold}).
 */
final class PgPruning {

  /**
   * The last snapshot a downstream stream acknowledged ({@link #acknowledged}); null = prune up to
   * what was read (one process serving its own images).
   */
  private volatile String acknowledgedSnapshot;

  private final PruningHold pruningHold = new PruningHold();

  /** A downstream stream holds everything read up to {@code snapshot}. */
  void acknowledged(String snapshot) {
    acknowledgedSnapshot = snapshot;
  }

  /**
   * Deletes up to {@code limit} delivered outbox rows past {@code retention} ({@link
   * PgOutboxQueries#prune}) that no other live server still needs.
   *
   * @param readSnapshot the snapshot the tail read up to (null: nothing read yet)
   * @return the rows deleted
   */
  int pruneChunk(Connection c, CapturePlan plan, Duration retention, String readSnapshot, int limit)
      throws SQLException {
    String snapshot = bound(readSnapshot);
    if (snapshot == null) {
      return 0; // nothing read yet
    }
    return PgOutboxQueries.prune(
        c,
        plan.outboxTable(),
        snapshot,
        pruningHold.othersAllow(
            c, plan.dialect(), plan.outboxSchema(), PgOutboxQueries.xmin(snapshot)),
        retention,
        limit);
  }

  /** The xmin of the snapshot pruning stops at: transactions from it on may still be read. */
  OptionalLong neededFrom(String readSnapshot) {
    String snapshot = bound(readSnapshot);
    return snapshot == null
        ? OptionalLong.empty()
        : OptionalLong.of(PgOutboxQueries.xmin(snapshot));
  }

  private String bound(String readSnapshot) {
    String acked = acknowledgedSnapshot;
    return acked == null ? readSnapshot : acked;
  }
}
