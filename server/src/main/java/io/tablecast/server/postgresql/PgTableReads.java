package io.tablecast.server.postgresql;

import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.ChunkQuery;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Set;
import org.postgresql.PGStatement;

/**
 * How PostgreSQL reads whole tables (snapshots, re-reads) and key ranges (reconciliation): each row
 * as its columns' texts when their JSON forms are those texts, else as JSON text the way the
 * capture function would write it; either way the row form is the captured images' bytes.
 */
final class PgTableReads {
  private PgTableReads() {}

  /**
   * Kinds whose JSON form in {@code to_jsonb} (the capture function's) is the type's text output or
   * converts from it to the same form ({@code ColumnValues}): a JSON number when that text is a
   * valid JSON number, else a string (integers, numerics including {@code NaN} and {@code money},
   * text-like types, {@code bytea}), {@code true} / {@code false}, and the date-time types, whose
   * text under {@code DateStyle = ISO} (pgjdbc's) differs from JSON's ISO 8601 only by a space for
   * the {@code T} and an offset of hours alone ({@code +00} for {@code +00:00}). A table of only
   * these kinds is read as one text column per column ({@link SnapshotRead.Shape#COLUMN_TEXTS}): no
   * JSON built per row, fetched two to three times faster than {@code row_to_json}
   * (docs/BENCHMARKS.md). Floats too: {@code to_jsonb} prints a float's shortest exact digits as
   * its text does (from PostgreSQL 12; only the notation differs, {@code 1e+300} against 301
   * digits, the same double), {@code NaN} and the infinities as strings, and {@code -0} as {@code
   * 0}, which the text's {@code -0} reads as too (an integral JSON number). Not JSON (arrays,
   * composites, {@code json} columns, types cast to JSON).
   */
  private static final Set<ColumnKind> READ_AS_TEXT =
      EnumSet.of(
          ColumnKind.INTEGER,
          ColumnKind.DECIMAL,
          ColumnKind.FLOAT,
          ColumnKind.BOOLEAN,
          ColumnKind.STRING,
          ColumnKind.BINARY,
          ColumnKind.DATE,
          ColumnKind.TIME,
          ColumnKind.TIMESTAMP,
          ColumnKind.TIMESTAMP_TZ);

  /**
   * How whole-table reads read {@code table}: its columns' texts when every column is of a kind in
   * {@link #READ_AS_TEXT}, else each row as JSON text ({@link #ROW_JSON}). Either way the row form
   * is the same bytes as the capture function's images ({@code ColumnTextReadTest}).
   */
  static SnapshotRead snapshotRead(TableSchema table) {
    RowSelect row = rowSelect(table);
    return new SnapshotRead(
        "SELECT " + row.list() + " FROM " + PgIdentifiers.quote(table.id()) + " t", row.shape());
  }

  /** The select list of a row of table {@code t} in whole-table and range reads, and its shape. */
  record RowSelect(String list, SnapshotRead.Shape shape) {}

  /** See {@link #snapshotRead}: the row's columns as texts when they can be, else its JSON. */
  static RowSelect rowSelect(TableSchema table) {
    if (!table.columns().stream().allMatch(c -> READ_AS_TEXT.contains(c.kind()))) {
      return new RowSelect(ROW_JSON, SnapshotRead.Shape.JSON_TEXT);
    }
    // no casts: the protocol's text is the output function's (a cast of char(n) to text would
    // drop its padding, which the JSON keeps; one of inet to text would add a /32)
    StringBuilder list = new StringBuilder();
    for (int i = 0; i < table.columns().size(); i++) {
      list.append(i == 0 ? "t." : ", t.");
      list.append(PgIdentifiers.quote(table.columns().get(i).name()));
    }
    return new RowSelect(list.toString(), SnapshotRead.Shape.COLUMN_TEXTS);
  }

  /**
   * A row as JSON text for whole-table reads of a table with a JSON column: the capture function's
   * generator, so the row form is the same bytes as its images ({@code TypeFidelityTest}); {@code
   * t.*}, not {@code t}: a column named t would be taken for the row.
   */
  static final String ROW_JSON = "to_jsonb(t.*)::text";

  /**
   * pgjdbc switches a statement it has run five times to a server-prepared one with binary results
   * for some types (then {@code getString} of a {@code numeric} may print an exponent and of a
   * {@code bytea} no longer the output function's text): a range read stays one-shot, in text.
   */
  static PreparedStatement prepareRead(Connection c, String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.unwrap(PGStatement.class).setPrepareThreshold(0);
    return ps;
  }

  /**
   * Keyset pagination: {@code (k1, k2) > (?, ?)} uses the primary key's index and its ordering,
   * collation included, so the chunks tile the table whatever the key's types; the key travels as
   * text, which every type reads back exactly.
   */
  static ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    StringBuilder keys = new StringBuilder();
    StringBuilder keyTexts = new StringBuilder();
    StringBuilder params = new StringBuilder();
    int[] order = new int[table.primaryKey().size()];
    for (int i = 0; i < order.length; i++) {
      String quoted = "t." + PgIdentifiers.quote(table.primaryKey().get(i));
      keys.append(i == 0 ? "" : ", ").append(quoted);
      keyTexts.append(", ").append(quoted).append("::text");
      params.append(i == 0 ? "?" : ", ?");
      order[i] = i;
    }
    RowSelect row = rowSelect(table);
    String sql =
        "SELECT "
            + row.list()
            + keyTexts
            + " FROM "
            + PgIdentifiers.quote(table.id())
            + " t"
            + (afterKey ? " WHERE (" + keys + ") > (" + params + ")" : "")
            + " ORDER BY "
            + keys
            + " LIMIT "
            + limit;
    // unspecified type: the server gives each parameter its column's type
    return new ChunkQuery(sql, row.shape(), afterKey ? order : new int[0], java.sql.Types.OTHER);
  }
}
