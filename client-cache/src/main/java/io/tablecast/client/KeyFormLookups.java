package io.tablecast.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A near cache's loads of a key given as a Java value whose text depends on its column: in the
 * forms rows carry of it ({@link KeyForms}), one load after the other until one finds a row.
 *
 * @param <V> the row type
 */
final class KeyFormLookups<V> {
  private final Function<Object, CompletableFuture<V>> load;
  private final Supplier<List<String>> primaryKey;
  private final Supplier<List<Column>> columns;

  /**
   * @param load the row of a normalized key, or null when the table has none
   * @param primaryKey the table's primary key as last heard
   * @param columns the table's columns as last heard (empty before the first answer)
   */
  KeyFormLookups(
      Function<Object, CompletableFuture<V>> load,
      Supplier<List<String>> primaryKey,
      Supplier<List<Column>> columns) {
    this.load = load;
    this.primaryKey = primaryKey;
    this.columns = columns;
  }

  /**
   * The row of {@code normalized}, else of the other forms of {@code given}, else null. When the
   * columns are known and {@code given} has other forms, those are asked for first: the plain form
   * of a {@code LocalDateTime} never finds a row, and that of a date for a {@code YEAR} is text the
   * server refuses for a number column.
   */
  CompletableFuture<V> find(Object given, Object normalized) {
    List<Object> others = otherForms(given, normalized);
    if (others.isEmpty()) {
      // the columns may be known only once this load is answered, which may refuse the plain form
      return load.apply(normalized)
          .exceptionallyCompose(
              failure -> {
                List<Object> now = otherForms(given, normalized);
                return now.isEmpty() ? CompletableFuture.failedFuture(failure) : firstFound(now);
              })
          .thenCompose(row -> row != null ? completed(row) : inOtherForms(given, normalized));
    }
    List<Object> keys = new ArrayList<>(others);
    if (KeyMisses.possible(primaryKey.get(), columns.get(), normalized)) {
      keys.add(normalized);
    }
    return firstFound(keys);
  }

  /** The row of a key whose plain form has none, in the forms rows carry ({@link KeyForms}). */
  CompletableFuture<V> inOtherForms(Object given, Object normalized) {
    return firstFound(otherForms(given, normalized));
  }

  /** The keys to look up for {@code given} beside {@code normalized} ({@link KeyForms}). */
  List<Object> otherForms(Object given, Object normalized) {
    return KeyForms.alternatives(primaryKey.get(), columns.get(), given, normalized);
  }

  /** The row of the first of {@code keys} that has one, asked for one after the other; or null. */
  private CompletableFuture<V> firstFound(List<Object> keys) {
    CompletableFuture<V> first = CompletableFuture.completedFuture(null);
    for (Object key : keys) {
      first = first.thenCompose(row -> row != null ? completed(row) : load.apply(key));
    }
    return first;
  }

  private static <V> CompletableFuture<V> completed(V row) {
    return CompletableFuture.completedFuture(row);
  }
}
