package io.tablecast.server.postgresql;

import io.tablecast.protocol.row.TextSlices;
import io.tablecast.server.capture.RowTextsFetch;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * PostgreSQL's whole-table reads as {@code COPY (query) TO STDOUT} in text format: the same texts
 * as the query's result set (both are the types' output functions in the session's {@code
 * DateStyle} and {@code extra_float_digits}, which pgjdbc sets), in the same transaction and
 * snapshot, streamed by the database without a round trip per chunk and read as one array a row
 * instead of one a column (docs/BENCHMARKS.md, "Server start: whole tables read with COPY").
 *
 * <p>A run ends on an interrupt once the next row arrives, or when its caller throws; it then ends
 * the copy on its own thread: a cancel request (which has reached the database when {@code
 * cancelQuery} returns), then the copy read to its end, the cancel's error or the copy's last row,
 * whichever the cancel found. The connection is then in step again, its transaction failed or not,
 * and no cancel is left to reach its next statement. pgjdbc's own {@code cancelCopy} returns before
 * the cancel's error arrives: the next statement (the caller's rollback) failed with it and the
 * protocol was out of step ({@code PgCopyFetchTest}).
 */
final class PgCopyFetch implements RowTextsFetch.Fetch {

  /** The fetch for {@link PgDialect}. */
  static final RowTextsFetch COPY = PgCopyFetch::new;

  private static final String QUERY_CANCELED = "57014";

  private final PGConnection connection;
  private final String copy;
  private final int columns;

  private PgCopyFetch(Connection c, String sql, int columns) throws SQLException {
    this.connection = c.unwrap(PGConnection.class);
    this.copy = "COPY (" + sql + ") TO STDOUT";
    this.columns = columns;
  }

  @Override
  public void run(RowTextsFetch.Rows each) throws SQLException, InterruptedException {
    CopyOut out = connection.getCopyAPI().copyOut(copy);
    try {
      byte[] line;
      while ((line = out.readFromCopy()) != null) {
        each.accept(slices(line, columns));
        if (Thread.interrupted()) {
          throw new InterruptedException("COPY of " + copy + " interrupted");
        }
      }
    } catch (Throwable t) {
      if (out.isActive()) {
        try {
          endEarly(out);
        } catch (SQLException e) {
          t.addSuppressed(e);
        }
      }
      throw t;
    }
  }

  private void endEarly(CopyOut out) throws SQLException {
    try {
      connection.cancelQuery();
    } catch (SQLException e) {
      // not cancelled: the copy is read to its end below
    }
    try {
      while (out.readFromCopy() != null) {
        // rows of a read given up
      }
    } catch (SQLException e) {
      if (!QUERY_CANCELED.equals(e.getSQLState())) {
        throw e;
      }
    }
  }

  /** Nothing: {@link #run} ends on the reader's interrupt, see the class comment. */
  @Override
  public void cancel() {}

  @Override
  public void close() {}

  /**
   * The {@code columns} fields of one row of {@code COPY}'s text format, as slices of {@code line}:
   * separated by tabs, the row ended by a newline, {@code \N} for NULL, and a backslash before a
   * backslash, a tab, a newline or a carriage return in a value, written {@code \\ \t \n \r} (and
   * {@code \b \f \v}, which {@code COPY TO} writes for those control characters), unescaped in
   * place; a text is UTF-8 (pgjdbc's only client encoding). {@code line} becomes the row's.
   *
   * @throws IllegalStateException when the row has another number of fields
   */
  static TextSlices slices(byte[] line, int columns) {
    int[] bounds = new int[columns << 1];
    int end = line.length > 0 && line[line.length - 1] == '\n' ? line.length - 1 : line.length;
    int column = 0;
    int start = 0;
    boolean escaped = false;
    for (int i = 0; i <= end; i++) {
      if (i == end || line[i] == '\t') {
        if (column == columns) {
          throw wrongFieldCount(line, columns);
        }
        int to = i;
        if (escaped) {
          escaped = false;
          if (i - start == 2 && line[start + 1] == 'N') {
            start = -1; // NULL
            to = -1;
          } else {
            to = unescape(line, start, i);
          }
        }
        bounds[column << 1] = start;
        bounds[(column++ << 1) + 1] = to;
        start = i + 1;
      } else if (line[i] == '\\') {
        escaped = true;
      }
    }
    if (column != columns) {
      throw wrongFieldCount(line, columns);
    }
    return new TextSlices(line, bounds);
  }

  /** Unescapes the field from {@code from} to {@code to} in place; returns its new end. */
  private static int unescape(byte[] line, int from, int to) {
    int n = from;
    for (int i = from; i < to; i++) {
      byte b = line[i];
      if (b == '\\' && i + 1 < to) {
        b = unescaped(line[++i]);
      }
      line[n++] = b;
    }
    return n;
  }

  private static byte unescaped(byte escaped) {
    return switch (escaped) {
      case 'b' -> '\b';
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'v' -> 0x0b;
      default -> escaped; // a backslash, or any other character standing for itself
    };
  }

  /** Without the row's text: it may hold what the logs should not. */
  private static IllegalStateException wrongFieldCount(byte[] line, int columns) {
    int tabs = 0;
    for (byte b : line) {
      tabs += b == '\t' ? 1 : 0;
    }
    return new IllegalStateException(
        "a row of COPY output has " + (tabs + 1) + " fields, its read " + columns + " columns");
  }
}
