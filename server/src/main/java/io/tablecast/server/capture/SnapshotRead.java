package io.tablecast.server.capture;

/**
 * How a dialect reads every row of a table (a snapshot, a re-read): the query, and what each of its
 * result rows holds.
 *
 * @param sql the query
 * @param shape what a result row holds
 */
public record SnapshotRead(String sql, Shape shape) {

  /** What a result row of the query holds. */
  public enum Shape {
    /** One column: the row as JSON text, from the triggers' own generator. */
    JSON_TEXT,

    /**
     * One column per column of the table version, in table order: each value as its type's text
     * output (NULL as NULL), which {@link RowNormalizer#encodeColumnTexts} turns into the same row
     * form as the generator's JSON. Only for tables whose every column's JSON form is that text (or
     * the number or boolean it spells), which the dialect knows; the database then builds no JSON.
     */
    COLUMN_TEXTS;

    /** How many text columns a result row of a read of {@code table} holds its row in. */
    public int columns(TableSchema table) {
      return this == JSON_TEXT ? 1 : table.columns().size();
    }
  }
}
