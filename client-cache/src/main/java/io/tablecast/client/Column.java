package io.tablecast.client;

import java.util.Objects;

/**
 * A column of a mirrored table, as {@link TableMirror#columns()} lists them.
 *
 * @param name the column name as the database spells it (the key of its value in a generic row)
 * @param databaseType the database's own type name, e.g. {@code decimal(12,4)} or {@code
 *     timestamptz}
 * @param type how the column's values are represented in rows
 */
public record Column(String name, String databaseType, ColumnType type) {

  /**
   * @throws NullPointerException naming the missing component
   */
  public Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(databaseType, "databaseType");
    Objects.requireNonNull(type, "type");
  }
}
