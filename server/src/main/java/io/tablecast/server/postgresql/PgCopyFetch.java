package io.tablecast.server.postgresql;

import io.tablecast.server.capture.RowTextsFetch;
import java.nio.charset.StandardCharsets;
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
        each.accept(fields(line, columns));
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
   * The {@code columns} fields of one row of {@code COPY}'s text format: separated by tabs, the row
   * ended by a newline, {@code \N} for NULL, and a backslash before a backslash, a tab, a newline
   * or a carriage return in a value, written {@code \\ \t \n \r} (and {@code \b \f \v}, which
   * {@code COPY TO} writes for those control characters); a text is UTF-8 (pgjdbc's only client
   * encoding).
   *
   * @throws IllegalStateException when the row has another number of fields
   */
  static String[] fields(byte[] line, int columns) {
    String[] texts = new String[columns];
    int end = line.length > 0 && line[line.length - 1] == '\n' ? line.length - 1 : line.length;
    int column = 0;
    int start = 0;
    for (int i = 0; i <= end; i++) {
      if (i == end || line[i] == '\t') {
        if (column == columns) {
          throw wrongFieldCount(line, columns);
        }
        texts[column++] = field(line, start, i);
        start = i + 1;
      }
    }
    if (column != columns) {
      throw wrongFieldCount(line, columns);
    }
    return texts;
  }

  private static String field(byte[] line, int from, int to) {
    int backslash = -1;
    for (int i = from; i < to; i++) {
      if (line[i] == '\\') {
        backslash = i;
        break;
      }
    }
    if (backslash < 0) {
      return new String(line, from, to - from, StandardCharsets.UTF_8);
    }
    if (to - from == 2 && line[from + 1] == 'N') {
      return null;
    }
    byte[] out = new byte[to - from];
    int n = backslash - from;
    System.arraycopy(line, from, out, 0, n);
    for (int i = backslash; i < to; i++) {
      byte b = line[i];
      if (b == '\\' && i + 1 < to) {
        b = unescaped(line[++i]);
      }
      out[n++] = b;
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
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
