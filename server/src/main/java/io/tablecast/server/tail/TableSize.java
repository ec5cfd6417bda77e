package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import java.util.List;

/**
 * What a source knows of a cached table's size before it reads the table whole: the catalog's row
 * count estimate and the table's first rows in the row form, read in the same consistent read.
 *
 * @param table the table
 * @param estimatedRows the catalog's estimate ({@code pg_class.reltuples}, {@code
 *     information_schema.TABLES.TABLE_ROWS}); -1 when it has none
 * @param firstRows the table's first rows (at most {@link #FIRST_ROWS}), as the image stores them:
 *     fewer than that means the table has no more rows
 */
public record TableSize(TableSchema table, long estimatedRows, List<byte[]> firstRows) {

  /** How many rows of each table a source reads ahead to measure its bytes per row. */
  public static final int FIRST_ROWS = 1000;

  public TableSize {
    firstRows = List.copyOf(firstRows);
  }

  /** The rows the table is expected to have: exact when {@link #whole}, else the estimate. */
  public long expectedRows() {
    return whole() ? firstRows.size() : Math.max(estimatedRows, firstRows.size());
  }

  /** Whether {@link #firstRows} is the whole table. */
  public boolean whole() {
    return firstRows.size() < FIRST_ROWS;
  }
}
