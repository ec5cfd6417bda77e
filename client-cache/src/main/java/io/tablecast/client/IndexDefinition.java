package io.tablecast.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A secondary index of a mirror, declared with {@link TablecastClient#mirror(String, Class, List)}
 * and read through {@link TableMirror#index(String)}: a hash index answers equality, a sorted one
 * also ranges and ordered iteration. The key is read from each row by column name (generic rows) or
 * by a function (any row type; return a {@code List} for a key of several parts). Immutable: {@link
 * #unique()} and {@link #columns(String...)} return a new definition.
 *
 * <p>Keys are normalized like primary keys (an integral number is a {@code Long}, so {@code 42} and
 * {@code 42L} find the same rows); an index by column names reads each column by its kind ({@code
 * LocalDate}, {@code LocalDateTime}, {@code Duration}, {@code Instant}, {@code BigDecimal}), from
 * the rows' texts and from the values looked up alike (docs/CLIENT.md). Rows whose key is null are
 * indexed under null: {@code get(null)} finds them, ranges never do. A unique index never drops a
 * row: two rows with the same (non-null) key are told to the {@link ErrorListener}s and {@link
 * MirrorIndex#getOne} of that key throws; {@link MirrorIndex#get} returns both.
 *
 * @param <V> the row type
 */
public final class IndexDefinition<V> {
  private final String name;
  private final boolean sorted;
  private final boolean unique;
  private final List<String> columns;
  private final Function<? super V, ?> key;

  private IndexDefinition(
      String name,
      boolean sorted,
      boolean unique,
      List<String> columns,
      Function<? super V, ?> key) {
    this.name = name;
    this.sorted = sorted;
    this.unique = unique;
    this.columns = columns;
    this.key = key;
  }

  /** A hash index of generic rows on one or several columns (a composite key is a list). */
  public static IndexDefinition<Map<String, Object>> hash(String name, String... columns) {
    return byColumns(name, false, columns);
  }

  /** A sorted index of generic rows on one or several columns (a composite key is a list). */
  public static IndexDefinition<Map<String, Object>> sorted(String name, String... columns) {
    return byColumns(name, true, columns);
  }

  /** A hash index on the key {@code key} reads from a row (a record component, say). */
  public static <V> IndexDefinition<V> hash(String name, Function<? super V, ?> key) {
    return new IndexDefinition<>(checkName(name), false, false, List.of(), checkKey(name, key));
  }

  /** A sorted index on the key {@code key} reads from a row (a record component, say). */
  public static <V> IndexDefinition<V> sorted(String name, Function<? super V, ?> key) {
    return new IndexDefinition<>(checkName(name), true, false, List.of(), checkKey(name, key));
  }

  /** This index, unique: at most one row per non-null key is expected. */
  public IndexDefinition<V> unique() {
    return new IndexDefinition<>(name, sorted, true, columns, key);
  }

  /**
   * This index, naming the columns its key function reads: when one of them leaves the table
   * ({@code ALTER TABLE} drops or renames it), the index becomes unavailable instead of indexing
   * whatever the row type then reads (null). An index by column names checks its own.
   */
  public IndexDefinition<V> columns(String... columns) {
    if (key instanceof ColumnsKey) {
      throw new IllegalArgumentException(
          "index "
              + name
              + " is by the columns "
              + this.columns
              + "; columns(...) is for a key function");
    }
    return new IndexDefinition<>(name, sorted, unique, checkColumns(name, columns), key);
  }

  /** The index's name, unique within its mirror. */
  public String name() {
    return name;
  }

  /** Whether it is sorted (ranges, ordered iteration) rather than hash (equality only). */
  public boolean isSorted() {
    return sorted;
  }

  /** Whether it is unique. */
  public boolean isUnique() {
    return unique;
  }

  /** The columns its key is made of or read from; empty when not named. */
  public List<String> indexedColumns() {
    return columns;
  }

  /** The key of {@code row}, not yet normalized. */
  Object keyOf(V row) {
    return key.apply(row);
  }

  private static IndexDefinition<Map<String, Object>> byColumns(
      String name, boolean sorted, String... columns) {
    List<String> cols = checkColumns(checkName(name), columns);
    return new IndexDefinition<>(name, sorted, false, cols, new ColumnsKey(cols));
  }

  /**
   * The key of a generic row by column names: a column's value, or the list of their values; a
   * DECIMAL column's as a {@code BigDecimal} (a {@link RowView} knows its columns' kinds).
   */
  private record ColumnsKey(List<String> columns) implements Function<Map<String, Object>, Object> {
    @Override
    public Object apply(Map<String, Object> row) {
      if (columns.size() == 1) {
        return value(row, columns.get(0));
      }
      Object[] parts = new Object[columns.size()];
      for (int i = 0; i < parts.length; i++) {
        parts[i] = value(row, columns.get(i));
      }
      return Arrays.asList(parts);
    }

    private static Object value(Map<String, Object> row, String column) {
      return row instanceof RowView view ? view.indexValue(column) : row.get(column);
    }
  }

  private static String checkName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "index name must not be blank, was " + (name == null ? null : "\"" + name + "\""));
    }
    return name;
  }

  private static <F> F checkKey(String name, F key) {
    if (key == null) {
      throw new IllegalArgumentException("the key function of index " + name + " must not be null");
    }
    return key;
  }

  private static List<String> checkColumns(String name, String... columns) {
    if (columns == null || columns.length == 0) {
      throw new IllegalArgumentException("index " + name + " needs at least one column");
    }
    List<String> out = new ArrayList<>();
    for (String c : columns) {
      if (c == null || c.isBlank()) {
        throw new IllegalArgumentException(
            "index " + name + " has a blank column name: " + Arrays.toString(columns));
      }
      out.add(c);
    }
    return List.copyOf(out);
  }

  /** Whether the key is read by column names, one value per column in order (generic rows). */
  boolean isByColumns() {
    return key instanceof ColumnsKey;
  }

  /** Whether {@code other} declares the same index (same name, kind, columns and function). */
  boolean sameAs(IndexDefinition<?> other) {
    return name.equals(other.name)
        && sorted == other.sorted
        && unique == other.unique
        && columns.equals(other.columns)
        && (key == other.key || (key instanceof ColumnsKey && key.equals(other.key)));
  }

  @Override
  public String toString() {
    return (unique ? "unique " : "")
        + (sorted ? "sorted" : "hash")
        + " index "
        + name
        + (columns.isEmpty() ? "" : " on " + columns);
  }
}
