package io.tablecast.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The rows and columns a mirror holds of its table, chosen by the client and applied by the server
 * (within what the client's principal may read): rows for which a filter holds, and the primary key
 * plus some columns. A row that starts matching arrives as an insert, one that stops matching as a
 * delete. The filter is a small part of SQL's {@code WHERE} ({@code =, <>, <, <=, >, >=, IN, NOT
 * IN, IS [NOT] NULL, AND, OR, NOT}, parentheses, one level of {@code column IN (SELECT c FROM
 * other_table WHERE ...)} over another cached table), its values literals or bound parameters
 * ({@code ?}, {@code $1}), parsed by the server into its own tree, never into SQL; see
 * docs/CLIENT.md (Subscription shapes). Immutable; equal shapes are equal.
 *
 * <pre>{@code
 * MirrorShape.rows("region = ? AND price < ?", "eu", 100).columns("name", "price")
 * }</pre>
 */
public final class MirrorShape {

  private final String filter;
  private final List<Object> params;
  private final List<String> columns;

  private MirrorShape(String filter, List<Object> params, List<String> columns) {
    this.filter = filter;
    this.params = params;
    this.columns = columns;
  }

  /**
   * The rows for which {@code filter} holds, {@code params} bound in order to its {@code ?} (or by
   * number to {@code $1}, {@code $2}...): strings, numbers, booleans, or anything whose {@code
   * toString} is the value (dates and times in ISO-8601).
   *
   * @throws IllegalArgumentException for a blank filter or a null parameter ({@code IS NULL} is the
   *     way to ask for NULLs)
   */
  public static MirrorShape rows(String filter, Object... params) {
    if (filter == null || filter.isBlank()) {
      throw new IllegalArgumentException("the filter of a shape must not be blank");
    }
    List<Object> bound = new ArrayList<>();
    for (int i = 0; i < params.length; i++) {
      if (params[i] == null) {
        throw new IllegalArgumentException(
            "parameter " + (i + 1) + " of the shape is null: write 'column IS NULL' instead");
      }
      bound.add(params[i]);
    }
    return new MirrorShape(filter, List.copyOf(bound), null);
  }

  /** Every row (and, unless {@link #columns} says otherwise, every column). */
  public static MirrorShape allRows() {
    return new MirrorShape(null, List.of(), null);
  }

  /** This shape holding only the primary key and {@code columns} of each row. */
  public MirrorShape columns(String... columns) {
    for (String c : columns) {
      if (c == null || c.isBlank()) {
        throw new IllegalArgumentException(
            "a shape's columns must not be blank: " + Arrays.asList(columns));
      }
    }
    return new MirrorShape(filter, params, List.of(columns));
  }

  /** The filter, or null for every row. */
  public String filter() {
    return filter;
  }

  /** The filter's parameters, in order. */
  public List<Object> params() {
    return params;
  }

  /** The columns besides the primary key, or null for all. */
  public List<String> columns() {
    return columns;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MirrorShape s
        && Objects.equals(filter, s.filter)
        && params.equals(s.params)
        && Objects.equals(columns, s.columns);
  }

  @Override
  public int hashCode() {
    return Objects.hash(filter, params, columns);
  }

  @Override
  public String toString() {
    return "MirrorShape[rows="
        + (filter == null ? "all" : filter + (params.isEmpty() ? "" : " " + params))
        + ", columns="
        + (columns == null ? "all" : columns)
        + "]";
  }
}
