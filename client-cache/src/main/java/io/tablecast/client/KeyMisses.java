package io.tablecast.client;

import java.util.List;

/**
 * What a lookup that found no row was given, checked against the table's primary key: a key that no
 * row can have (the wrong number of parts, or a part of another kind than its column's, such as the
 * text {@code "42"} for an integer column) is refused with what to give instead, rather than
 * answered with "no such row". Only misses are checked, so a lookup that finds its row costs
 * nothing more.
 */
final class KeyMisses {
  private KeyMisses() {}

  /**
   * @param primaryKey the table's primary-key columns, in order
   * @param columns the table's columns (empty before its first snapshot: nothing is checked)
   * @param key the key as normalized ({@code Long}, {@code BigInteger}, {@code String}, {@code
   *     Boolean}, or a {@code List} of those for a composite key)
   * @param given what the caller gave: the key, or the parts of a composite key as an array
   * @throws IllegalArgumentException when no row of the table can have {@code key}
   */
  static void check(
      String table, List<String> primaryKey, List<Column> columns, Object key, Object given) {
    if (columns.isEmpty() || primaryKey.isEmpty() || key == null) {
      return;
    }
    int n = primaryKey.size();
    boolean composite = key instanceof List<?> || (n == 1 && given instanceof List<?>);
    if ((n > 1 && (!composite || ((List<?>) key).size() != n)) || (n == 1 && composite)) {
      throw new IllegalArgumentException(
          call(given)
              + " on "
              + table
              + ": its primary key has "
              + (n == 1
                  ? "one column, " + primaryKey.get(0) + ": give its value alone"
                  : n
                      + " columns ("
                      + String.join(", ", primaryKey)
                      + "): give a value for each, in that order, as get(a, b) or"
                      + " get(List.of(a, b))"));
    }
    for (int i = 0; i < n; i++) {
      Object part = composite ? ((List<?>) key).get(i) : key;
      Column column = column(columns, primaryKey.get(i));
      String refusal = column == null || part == null ? null : refusal(column.type(), part);
      if (refusal != null) {
        throw new IllegalArgumentException(
            call(given)
                + " on "
                + table
                + ": key column "
                + column.name()
                + " is "
                + column.type()
                + " ("
                + column.databaseType()
                + "), so "
                + kindOf(part)
                + " never finds a row; "
                + refusal);
      }
    }
  }

  /** Why {@code part} cannot be a key value of a column of {@code type}, or null when it can be. */
  private static String refusal(ColumnType type, Object part) {
    boolean number = part instanceof Long || part instanceof java.math.BigInteger;
    return switch (type) {
      case INTEGER -> number ? null : "give a number (get(42L))";
      case BOOLEAN -> part instanceof Boolean ? null : "give a Boolean";
      case FLOAT, JSON -> null; // keyed by their JSON text, or a number when integral
      case DECIMAL ->
          number || part instanceof Boolean
              ? "give its text with the column's scale, as the database prints it"
                  + " (get(\"12.30\") for numeric(10,2))"
              : null;
      default ->
          number || part instanceof Boolean
              ? "give its text as docs/TYPES.md shows it (get(\"" + part + "\"))"
              : null;
    };
  }

  /** A key part as the message names its kind. */
  private static String kindOf(Object part) {
    return part instanceof String ? "text" : part instanceof Boolean ? "Boolean" : "number";
  }

  /** What the caller wrote: {@code get("42")}, {@code get(1, "a")}. */
  static String call(Object given) {
    if (given instanceof Object[] parts) {
      StringBuilder sb = new StringBuilder();
      for (Object p : parts) {
        sb.append(sb.isEmpty() ? "" : ", ").append(shown(p));
      }
      return "get(" + sb + ")";
    }
    return "get(" + shown(given) + ")";
  }

  private static String shown(Object value) {
    return value instanceof CharSequence ? "\"" + value + "\"" : String.valueOf(value);
  }

  private static Column column(List<Column> columns, String name) {
    for (Column c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
