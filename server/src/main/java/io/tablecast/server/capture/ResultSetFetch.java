package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** {@link RowTextsFetch#RESULT_SET}: the query's result set, read with {@code getString}. */
final class ResultSetFetch implements RowTextsFetch.Fetch {
  static final int FETCH_SIZE = 1000;

  private final Statement statement;
  private final String sql;
  private final int columns;

  ResultSetFetch(Connection c, String sql, int columns) throws SQLException {
    this.statement = c.createStatement();
    this.sql = sql;
    this.columns = columns;
  }

  @Override
  public void run(RowTextsFetch.Rows each) throws SQLException, InterruptedException {
    statement.setFetchSize(FETCH_SIZE);
    try (ResultSet rs = statement.executeQuery(sql)) {
      while (rs.next()) {
        each.accept(RowTextsFetch.texts(rs, columns));
      }
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
