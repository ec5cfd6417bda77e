package io.tablecast.server.capture;

import io.tablecast.protocol.row.TextSlices;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How a dialect fetches the rows of a whole-table read ({@link SnapshotRead}) as texts: each row's
 * columns as their types' text output, NULL as null. By default the query's result set, fetched in
 * chunks ({@link #RESULT_SET}); a database with a cheaper bulk export fetches with it (PostgreSQL's
 * {@code COPY ... TO STDOUT}). A fetch runs on a reader thread of its own, in the caller's
 * connection and transaction, while the caller encodes the rows read before.
 */
@FunctionalInterface
public interface RowTextsFetch {

  /**
   * The query's result set, {@link ResultSetFetch#FETCH_SIZE} rows a round trip, each row's columns
   * read with {@code getString}.
   */
  RowTextsFetch RESULT_SET = resultSet(ResultSetFetch::asStrings);

  /**
   * The query's result set, {@link ResultSetFetch#FETCH_SIZE} rows a round trip (a {@code
   * Statement}, so the driver's text protocol), its rows read by {@code rows}: a driver whose rows
   * can be taken as they arrived, without a {@code String} per value (MariaDB Connector/J's).
   */
  static RowTextsFetch resultSet(ResultSetRows rows) {
    return (c, sql, columns) -> new ResultSetFetch(c, sql, columns, rows);
  }

  /** A fetch of the rows of {@code sql} (each row's first {@code columns} columns) on {@code c}. */
  Fetch open(Connection c, String sql, int columns) throws SQLException;

  /**
   * The first {@code columns} columns of the result set's current row, as texts: how {@link
   * #RESULT_SET} reads each row, and every read of a few rows (ranges, rows by key) too.
   */
  static String[] texts(ResultSet rs, int columns) throws SQLException {
    String[] texts = new String[columns];
    for (int i = 0; i < columns; i++) {
      texts[i] = rs.getString(i + 1);
    }
    return texts;
  }

  /** How a {@link #resultSet} fetch reads the rows of its result set. */
  @FunctionalInterface
  interface ResultSetRows {
    /**
     * Hands each row of {@code rs} (its first {@code columns} columns) to {@code each}, in order,
     * until the result set ends.
     */
    void read(ResultSet rs, int columns, Rows each) throws SQLException, InterruptedException;
  }

  /** One fetch, run once. */
  interface Fetch extends AutoCloseable {

    /**
     * Runs the read and hands each row's texts to {@code each}, in order, on the calling thread; an
     * interrupt of that thread ends it soon (with {@link InterruptedException}), leaving the
     * connection usable once rolled back.
     */
    void run(Rows each) throws SQLException, InterruptedException;

    /**
     * Asks a {@link #run} in progress on another thread to stop: called after interrupting that
     * thread, for a read the interrupt alone would not end soon (a result set waiting on the
     * database).
     */
    void cancel();

    @Override
    void close() throws SQLException;
  }

  /** Takes each row's texts; may block (a reader ahead of its caller waits for room). */
  @FunctionalInterface
  interface Rows {
    void accept(String[] texts) throws InterruptedException;

    /**
     * Takes a row whose texts a fetch read as UTF-8 slices of one array ({@code COPY}), to be
     * written into the row form without a {@code String} per value; by default as strings.
     */
    default void accept(TextSlices row) throws InterruptedException {
      accept(row.texts());
    }
  }
}
