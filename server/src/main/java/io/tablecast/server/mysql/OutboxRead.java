package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
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

  /**
   * The server session the read ran in ({@code server_id/connection id}), for {@link
   * io.tablecast.server.tail.InstanceWatch#confirmSession}: carried by every row it returns, so a
   * read that finds rows names it at no cost; null when it found none and did not ask ({@link
   * #SESSION}).
   */
  String session;

  /**
   * Names the server session even when the read finds no rows: one more statement in the read's
   * round trip, about 22 µs of MariaDB's CPU against 105 µs for an empty read on the 2-core test
   * machine ({@code bench/scripts/StatementCost.java}), so it is asked only now and then.
   */
  static final String SESSION = "SELECT @@server_id, CONNECTION_ID(); ";

  private OutboxRead(
      CapturePlan plan,
      ChangedRowStatements statements,
      Consumer<String> rowRefused,
      LockedTables locks,
      Predicate<String> gone) {
    this.changed = new ChangedRows(plan, statements, rowRefused, locks, gone);
  }

  /**
   * One consistent read of the outbox of {@code plan} (one statement, or inside the caller's
   * snapshot): the rows {@code gaps} still wants. With {@code begin} (statements, each ending in
   * {@code ;}, e.g. those that begin that snapshot) sent with the read as one multi-statement: one
   * round trip, not one a statement (the tail's pool allows it: {@link
   * MysqlDialect#poolProperties}).
   *
   * @param begin statements to run first, or ""
   * @param askSession whether to read {@link #session} even when no row comes ({@link #SESSION},
   *     after {@code begin})
   * @param statements how its changed rows are read ({@link ChangedRows})
   * @param rowRefused told the table of each changed row that cannot be read
   * @param gone the tables no longer there under their name: their rows are consumed, not read
   * @param locks the tables whose metadata lock was not granted: their keys are kept, not read
   */
  static OutboxRead read(
      Statement s,
      String begin,
      boolean askSession,
      CapturePlan plan,
      ChangedRowStatements statements,
      GapTracker gaps,
      Consumer<String> rowRefused,
      Predicate<String> gone,
      LockedTables locks)
      throws SQLException {
    OutboxRead read = new OutboxRead(plan, statements, rowRefused, locks, gone);
    String sql = begin + (askSession ? SESSION : "") + outboxQuery(plan, gaps);
    toResultSet(s, s.execute(sql), sql);
    if (askSession) {
      try (ResultSet rs = s.getResultSet()) {
        rs.next();
        read.session = rs.getLong(1) + "/" + rs.getLong(2);
      }
      toResultSet(s, s.getMoreResults(), sql);
    }
    try (ResultSet rs = s.getResultSet()) {
      while (rs.next()) {
        if (read.session == null) {
          read.session = rs.getLong(7) + "/" + rs.getLong(8);
        }
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

  /** The read of the outbox rows {@code gaps} still wants, in id order. */
  private static String outboxQuery(CapturePlan plan, GapTracker gaps) {
    return "SELECT id, table_name, op, new_key, old_key, CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED), "
        + "@@server_id, CONNECTION_ID() FROM "
        + plan.outboxTable()
        + " WHERE "
        + gaps.whereClause()
        + " ORDER BY id";
  }

  /**
   * The database's plan for the next read of the outbox, as {@code EXPLAIN} prints it (one line a
   * row of its table, each column that has a value), for the warning about slow reads: the access
   * type and key it chose and the rows it expects show a read gone wrong (a scan of the whole
   * outbox where a range of its primary key should do). The columns differ between MySQL and
   * MariaDB, so they are printed as the database names them.
   */
  static String plan(Connection c, CapturePlan plan, GapTracker gaps) throws SQLException {
    StringBuilder out =
        new StringBuilder("The database's plan for the read (EXPLAIN; if its row estimates are far")
            .append(" from the changes a read returns, ANALYZE TABLE ")
            .append(plan.outboxTable())
            .append("):");
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + outboxQuery(plan, gaps))) {
      ResultSetMetaData columns = rs.getMetaData();
      while (rs.next()) {
        StringJoiner line = new StringJoiner(", ", System.lineSeparator() + "    ", "");
        for (int i = 1; i <= columns.getColumnCount(); i++) {
          String value = rs.getString(i);
          if (value != null) {
            line.add(columns.getColumnLabel(i) + "=" + value);
          }
        }
        out.append(line);
      }
    }
    return out.toString();
  }

  /**
   * Moves past the update counts of {@code sql}'s statements (those that begin a snapshot) to its
   * next result set.
   *
   * @param resultSet what {@code execute} or {@code getMoreResults} returned
   */
  private static void toResultSet(Statement s, boolean resultSet, String sql) throws SQLException {
    boolean at = resultSet;
    while (!at) {
      if (s.getUpdateCount() == -1) {
        throw new SQLException("the outbox read returned no result set: " + sql);
      }
      at = s.getMoreResults();
    }
  }
}
