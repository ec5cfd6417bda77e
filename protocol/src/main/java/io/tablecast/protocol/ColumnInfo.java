package io.tablecast.protocol;

import java.util.Objects;

/**
 * A column of a cached table, as sent with every snapshot so that clients can map rows to typed
 * records.
 *
 * @param name the column name as the database spells it
 * @param dbType the database's own type name, e.g. {@code decimal(12,4)} or {@code timestamptz}
 * @param kind how the column's values are represented in JSON
 */
public record ColumnInfo(String name, String dbType, ColumnKind kind) {
  public ColumnInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(dbType, "dbType");
    Objects.requireNonNull(kind, "kind");
  }
}
