package io.tablecast.server.capture;

import java.util.Objects;

/**
 * A table's schema (PostgreSQL schema or MySQL database) and name. Its qualified form {@code
 * schema.table} is the name clients subscribe with. A value class (equal by schema and name, as the
 * record it was), not a record, so that the qualified name is made once: the hub names a table with
 * it for every change.
 */
public final class TableId {
  private final String schema;
  private final String name;
  private final String qualified;

  public TableId(String schema, String name) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.name = Objects.requireNonNull(name, "name");
    this.qualified = schema + "." + name;
  }

  public String schema() {
    return schema;
  }

  public String name() {
    return name;
  }

  /** {@code schema.table}, the name used in configuration, on the wire and in the outbox. */
  public String qualified() {
    return qualified;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableId other && schema.equals(other.schema) && name.equals(other.name);
  }

  @Override
  public int hashCode() {
    return 31 * schema.hashCode() + name.hashCode();
  }

  /**
   * Parses {@code table} or {@code schema.table}.
   *
   * @param defaultSchema used when the name has no schema part
   * @throws IllegalArgumentException naming the bad value
   */
  public static TableId parse(String text, String defaultSchema) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("table name must not be empty");
    }
    String t = text.trim();
    int dot = t.indexOf('.');
    if (dot < 0) {
      return new TableId(defaultSchema, t);
    }
    if (t.indexOf('.', dot + 1) >= 0) {
      throw new IllegalArgumentException(
          "table name must be 'table' or 'schema.table', was '"
              + text
              + "': a schema or table whose own name has a dot in it cannot be cached (tables are"
              + " named schema.table in the configuration, on the wire and in the outbox); rename"
              + " it, or keep the rows in a table whose names have none");
    }
    if (dot == 0 || dot == t.length() - 1) {
      throw new IllegalArgumentException(
          "table name must be 'table' or 'schema.table', was '" + text + "'");
    }
    return new TableId(t.substring(0, dot), t.substring(dot + 1));
  }

  @Override
  public String toString() {
    return qualified();
  }
}
