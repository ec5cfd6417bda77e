package io.tablecast.server.capture;

import java.util.List;
import java.util.Objects;

/**
 * Which columns of a cached table are cached ({@code cached_tables} entry with {@code columns} or
 * {@code exclude_columns}): all by default; a narrower mirror, or the way to leave out a column
 * whose type cannot be captured. Primary-key columns are always cached.
 *
 * @param columns the columns to cache, in any order (they keep the table's order); null = all
 * @param excludeColumns columns to leave out; empty = none
 */
public record ColumnChoice(List<String> columns, List<String> excludeColumns) {
  /** Every column. */
  public static final ColumnChoice ALL = new ColumnChoice(null, List.of());

  public ColumnChoice {
    columns = columns == null ? null : List.copyOf(columns);
    excludeColumns = List.copyOf(Objects.requireNonNullElse(excludeColumns, List.of()));
    if (columns != null && !excludeColumns.isEmpty()) {
      throw new IllegalArgumentException(
          "a cached_tables entry takes columns or exclude_columns, not both");
    }
    if (columns != null && columns.isEmpty()) {
      throw new IllegalArgumentException(
          "columns must name at least one column (leave it out to cache them all)");
    }
  }

  /** Only these columns. */
  public static ColumnChoice only(List<String> columns) {
    return new ColumnChoice(columns, List.of());
  }

  /** Every column but these. */
  public static ColumnChoice excluding(List<String> columns) {
    return new ColumnChoice(null, columns);
  }

  /** Whether {@code column} is cached. */
  public boolean includes(String column) {
    return columns != null ? columns.contains(column) : !excludeColumns.contains(column);
  }

  /** The columns this choice keeps by name ({@code columns}); empty for exclusions. */
  List<String> chosen() {
    return columns != null ? columns : List.of();
  }

  /** The columns this choice names: those it keeps, or those it leaves out. */
  List<String> named() {
    return columns != null ? columns : excludeColumns;
  }

  @Override
  public String toString() {
    return columns != null
        ? "columns: " + columns
        : excludeColumns.isEmpty() ? "all columns" : "exclude_columns: " + excludeColumns;
  }
}
