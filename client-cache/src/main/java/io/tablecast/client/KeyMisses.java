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
    List<Object> givenParts = KeyForms.parts(given, n);
    for (int i = 0; i < n; i++) {
      Object part = composite ? ((List<?>) key).get(i) : key;
      Object givenPart = givenParts.size() == n ? givenParts.get(i) : part;
      Column column = column(columns, primaryKey.get(i));
      String refusal = null;
      if (column != null && part != null) {
        refusal = KeyForms.refusal(givenPart, column);
        if (refusal != null) {
          part = givenPart; // a LocalDateTime for an instant: named by its class below
        } else if (KeyForms.forms(givenPart, column).isEmpty()) {
          refusal = refusal(column.type(), part); // else it had its column's form, and no row
        }
      }
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

  /**
   * Whether a row can have the normalized {@code key} of as many parts as the primary key, each of
   * its column's kind (true before the first snapshot, when no column is known).
   */
  static boolean possible(List<String> primaryKey, List<Column> columns, Object key) {
    int n = primaryKey.size();
    for (int i = 0; i < n && !columns.isEmpty(); i++) {
      Object part = n == 1 ? key : key instanceof List<?> l && l.size() == n ? l.get(i) : null;
      Column column = column(columns, primaryKey.get(i));
      if (part == null || (column != null && refusal(column.type(), part) != null)) {
        return false;
      }
    }
    return true;
  }

  /** Why {@code part} cannot be a key value of a column of {@code type}, or null when it can be. */
  private static String refusal(ColumnType type, Object part) {
    boolean number = part instanceof Long || part instanceof java.math.BigInteger;
    return switch (type) {
      case INTEGER -> number ? null : "give a number (get(42L))";
      case BOOLEAN -> part instanceof Boolean ? null : "give a Boolean";
      case FLOAT, JSON -> null; // keyed by their JSON text, or a number when integral
      case DECIMAL ->
          part instanceof Boolean ? "give a BigDecimal or its text (get(\"12.30\"))" : null;
      default ->
          number || part instanceof Boolean
              ? "give its text as docs/TYPES.md shows it (get(\"" + part + "\"))"
              : null;
    };
  }

  /** A key part as the message names its kind. */
  private static String kindOf(Object part) {
    if (part instanceof String || part instanceof Boolean || part instanceof Number) {
      return part instanceof String ? "text" : part instanceof Boolean ? "Boolean" : "number";
    }
    return "a " + (part instanceof byte[] ? "byte[]" : part.getClass().getSimpleName());
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
    if (value instanceof byte[] bytes) {
      return "byte[" + bytes.length + "]";
    }
    return value instanceof CharSequence ? "\"" + value + "\"" : String.valueOf(value);
  }

  static Column column(List<Column> columns, String name) {
    for (Column c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
