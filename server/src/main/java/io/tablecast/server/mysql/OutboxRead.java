package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The wanted outbox rows of one read of {@link MysqlChangeSource}: their ids, and the changed keys
 * they name.
 */
final class OutboxRead {
  final List<Long> ids = new ArrayList<>();
  final ChangedRows changed;
  long captureMillis;
  int rows;

  private OutboxRead(CapturePlan plan, MysqlFlavor flavor, Consumer<String> rowRefused) {
    this.changed = new ChangedRows(plan, flavor, rowRefused);
  }

  /**
   * One consistent read of the outbox of {@code plan} (one statement, or inside the caller's
   * snapshot): the rows {@code gaps} still wants. With {@code begin} (statements, each ending in
   * {@code ;}, e.g. those that begin that snapshot) sent with the read as one multi-statement: one
   * round trip, not one a statement (the tail's pool allows it: {@link
   * MysqlDialect#poolProperties}).
   *
   * @param begin statements to run first, or ""
   * @param flavor how its changed rows are read ({@link ChangedRows})
   * @param rowRefused told the table of each changed row that cannot be read
   * @param gone the tables no longer there under their name: their rows are consumed, not read
   */
  static OutboxRead read(
      Statement s,
      String begin,
      CapturePlan plan,
      MysqlFlavor flavor,
      GapTracker gaps,
      Consumer<String> rowRefused,
      Predicate<String> gone)
      throws SQLException {
    OutboxRead read = new OutboxRead(plan, flavor, rowRefused);
    String sql =
        begin
            + "SELECT id, table_name, op, new_key, old_key, CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED) FROM "
            + plan.outboxTable()
            + " WHERE "
            + gaps.whereClause()
            + " ORDER BY id";
    try (ResultSet rs = lastResult(s, sql)) {
      while (rs.next()) {
        long id = rs.getLong(1);
        if (!gaps.wanted(id)) {
          continue; // the id-range form of the gap list also returns delivered rows
        }
        read.ids.add(id);
        if (!gone.test(rs.getString(2))
            && read.changed.add(rs.getString(2), rs.getString(4), rs.getString(5))) {
          read.captureMillis = Math.max(read.captureMillis, rs.getLong(6));
          read.rows++;
        }
      }
    }
    return read;
  }

  /** Runs {@code sql} and returns its result set, after the update counts of what comes first. */
  private static ResultSet lastResult(Statement s, String sql) throws SQLException {
    boolean resultSet = s.execute(sql);
    while (!resultSet) {
      if (s.getUpdateCount() == -1) {
        throw new SQLException("the outbox read returned no result set: " + sql);
      }
      resultSet = s.getMoreResults();
    }
    return s.getResultSet();
  }
}
