package io.tablecast.server.capture;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;

/**
 * One {@code cached_tables} entry: a table name, or {@code { table: T, columns: [...] }} or {@code
 * { table: T, exclude_columns: [...] }}. {@link SourceConfig} checks it, naming the entry.
 *
 * @param table {@code table} or {@code schema.table}
 * @param columns the only columns to cache; null = not given
 * @param excludeColumns the columns to leave out; null = not given
 */
public record CachedTable(String table, List<String> columns, List<String> excludeColumns) {

  /** Copies the lists. */
  @JsonCreator
  public CachedTable {
    columns = columns == null ? null : List.copyOf(columns);
    excludeColumns = excludeColumns == null ? null : List.copyOf(excludeColumns);
  }

  /** The whole table {@code name} (the entry written as a plain name). */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static CachedTable of(String name) {
    return new CachedTable(name, null, null);
  }

  /** {@code name} cached with {@code choice}. */
  static CachedTable of(String name, ColumnChoice choice) {
    return new CachedTable(
        name, choice.columns(), choice.excludeColumns().isEmpty() ? null : choice.excludeColumns());
  }

  /**
   * The columns this entry caches; checks the entry.
   *
   * @param where the entry, e.g. {@code cached_tables[2]}, for errors
   */
  ColumnChoice choice(String where) {
    if (table == null || table.isBlank()) {
      throw new IllegalArgumentException(
          where
              + " must name its table: { table: schema.table, columns: [...] } "
              + "or { table: schema.table, exclude_columns: [...] }, was "
              + this);
    }
    nonEmpty(columns, where + ".columns");
    nonEmpty(excludeColumns, where + ".exclude_columns");
    try {
      return new ColumnChoice(columns, excludeColumns);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + " (" + table + "): " + e.getMessage(), e);
    }
  }

  private static void nonEmpty(List<String> names, String key) {
    if (names != null
        && (names.isEmpty() || names.stream().anyMatch(n -> n == null || n.isBlank()))) {
      throw new IllegalArgumentException(
          key + " must be a non-empty list of column names, was " + names);
    }
  }

  @Override
  public String toString() {
    return columns == null && excludeColumns == null
        ? table
        : "{ table: "
            + table
            + (columns != null ? ", columns: " + columns : ", exclude_columns: " + excludeColumns)
            + " }";
  }
}
