package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.tail.RowEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The tail's common read of the outbox as one statement in autocommit, one round trip: the
 * statement's own snapshot ({@code pg_current_snapshot()}, which a statement outside a transaction
 * block reads in) with the rows of the transactions it shows that the previous one did not. The
 * read in a transaction ({@link PgChangeSource}) takes three: the snapshot, the rows, the commit.
 *
 * <p>It covers only reads with nothing else to do in the same snapshot: no table to re-read, no
 * reconciliation range, no catalog look due; and only outbox rows whose images hold exactly their
 * table's current columns. Anything else (a truncate or re-read marker, an image of other columns,
 * a value that no longer converts), or more than {@link #MAX_ROWS} rows, make it answer null
 * (nothing consumed), and the read in a transaction reads the same again with what it needs.
 * Confined to the tail thread.
 */
final class PgSingleStatementRead {
  /**
   * Most rows one read takes: more need the transaction's read, which fetches them in chunks (a
   * statement in autocommit holds its whole answer in memory).
   */
  static final int MAX_ROWS = 1_000;

  /**
   * What one read returned.
   *
   * @param snapshot the statement's snapshot: the read's new position
   * @param events the rows' events in outbox order
   * @param captureMillis the newest capture time among them, 0 for none
   * @param started when the server that answered started ({@code pg_postmaster_start_time()})
   * @param recovered when it last recovered from a crash ({@link PgOutboxQueries#RECOVERED}), or
   *     null when the read did not ask
   */
  record Result(
      String snapshot,
      List<RowEvent> events,
      long captureMillis,
      Instant started,
      Instant recovered) {}

  private final String sql;

  /** The source's current plan: a column change replaces it. */
  private final Supplier<CapturePlan> plan;

  /**
   * @param readSql the transaction's read of the rows ({@code id, table_name, op, new_row, old_row,
   *     created_at} in millis, parameters 1-3 the previous snapshot), which this one wraps
   */
  PgSingleStatementRead(String readSql, Supplier<CapturePlan> plan) {
    // the snapshot comes last so that the rows' columns keep the places the events read them at;
    // without rows, one row of NULLs carries it
    this.sql =
        "SELECT f.*, s.snap, s.started, s.recovered FROM (SELECT pg_current_snapshot()::text"
            + " AS snap, pg_postmaster_start_time() AS started,"
            + " CASE WHEN ? THEN "
            + PgOutboxQueries.RECOVERED
            + " END AS recovered) s "
            + "LEFT JOIN LATERAL ("
            + readSql
            + " LIMIT "
            + (MAX_ROWS + 1)
            + ") f ON true ORDER BY f.id";
    this.plan = plan;
  }

  /**
   * Reads the outbox once after {@code previousSnapshot} on {@code c}, which must be in autocommit.
   *
   * @param askRecovered whether to read when the server last recovered from a crash too (a few
   *     microseconds of the server's; only then is the subquery run)
   * @return the read, or null when the rows need a read in a transaction
   */
  Result read(Connection c, String previousSnapshot, boolean askRecovered) throws SQLException {
    List<RowEvent> events = new ArrayList<>();
    long captureMillis = 0;
    String snapshot = null;
    Instant started = null;
    Instant recovered = null;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setBoolean(1, askRecovered);
      for (int i = 2; i <= 4; i++) {
        ps.setString(i, previousSnapshot);
      }
      ps.setFetchSize(0); // autocommit: no cursor, every row in one answer
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (snapshot == null) { // the statement's own values, the same in every row: read once
            snapshot = rs.getString(7);
            started = rs.getObject(8, OffsetDateTime.class).toInstant();
            OffsetDateTime reset = rs.getObject(9, OffsetDateTime.class);
            recovered = reset == null ? null : reset.toInstant();
          }
          String table = rs.getString(2);
          if (table == null) {
            continue; // no new rows: the one row that carries the snapshot
          }
          RowNormalizer n = plan.get().normalizer(table);
          if (n == null) {
            continue; // a table another server caches
          }
          RowEvent e =
              PgOutboxEvents.exactEvent(
                  table, rs.getString(3).trim(), n, rs.getString(4), rs.getString(5));
          if (e == null) {
            return null;
          }
          if (events.size() == MAX_ROWS) {
            return null;
          }
          events.add(e);
          captureMillis = Math.max(captureMillis, rs.getLong(6));
        }
      }
    }
    if (snapshot == null) {
      throw new IllegalStateException("the outbox read returned no snapshot");
    }
    return new Result(snapshot, events, captureMillis, started, recovered);
  }
}
