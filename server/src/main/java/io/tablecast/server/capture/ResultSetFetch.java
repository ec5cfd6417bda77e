package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A fetch of a query's result set ({@link RowTextsFetch#RESULT_SET}, {@link
 * RowTextsFetch#resultSet}), {@link #FETCH_SIZE} rows a round trip, each row handed on as {@link
 * RowTextsFetch.ResultSetRows} reads it.
 */
final class ResultSetFetch implements RowTextsFetch.Fetch {
  static final int FETCH_SIZE = 1000;

  private final Statement statement;
  private final String sql;
  private final int columns;
  private final RowTextsFetch.ResultSetRows rows;

  ResultSetFetch(Connection c, String sql, int columns, RowTextsFetch.ResultSetRows rows)
      throws SQLException {
    this.statement = c.createStatement();
    this.sql = sql;
    this.columns = columns;
    this.rows = rows;
  }

  /** Every row with {@code getString}: {@link RowTextsFetch#RESULT_SET}'s way. */
  static void asStrings(ResultSet rs, int columns, RowTextsFetch.Rows each)
      throws SQLException, InterruptedException {
    while (rs.next()) {
      each.accept(RowTextsFetch.texts(rs, columns));
    }
  }

  @Override
  public void run(RowTextsFetch.Rows each) throws SQLException, InterruptedException {
    statement.setFetchSize(FETCH_SIZE);
    try (ResultSet rs = statement.executeQuery(sql)) {
      rows.read(rs, columns, each);
    }
  }

  @Override
  public void cancel() {
    try {
      statement.cancel();
    } catch (SQLException ignored) {
      // the read ends on its own, or on the interrupt
    }
  }

  @Override
  public void close() throws SQLException {
    statement.close();
  }
}
