package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import java.util.List;

/**
 * The columns and primary key of a cached table, read from the database catalog.
 *
 * @param id the table
 * @param columns every column, in table order
 * @param primaryKey primary-key column names in key order; never empty
 */
public record TableSchema(TableId id, List<ColumnInfo> columns, List<String> primaryKey) {
  public TableSchema {
    columns = List.copyOf(columns);
    primaryKey = List.copyOf(primaryKey);
    if (primaryKey.isEmpty()) {
      throw new IllegalArgumentException("table " + id.qualified() + " has no primary key");
    }
  }

  /** The column with the given name, or null. */
  public ColumnInfo column(String name) {
    for (ColumnInfo c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
