package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;

/**
 * A column as the catalog describes it, before the configuration chooses columns: its kind, or, for
 * a type Tablecast cannot capture, why not (so that every such column of every table can be named
 * at once, each with the configuration line that leaves it out).
 *
 * @param name the column's name
 * @param dbType the database's own type name
 * @param kind how its values are represented, or null when it cannot be captured
 * @param refusal why it cannot be captured (null when {@code kind} is set)
 */
public record CatalogColumn(String name, String dbType, ColumnKind kind, String refusal) {

  /** A column of a type Tablecast captures. */
  public static CatalogColumn of(String name, String dbType, ColumnKind kind) {
    return kind == null
        ? unsupported(name, dbType, "which Tablecast does not support (see docs/TYPES.md)")
        : new CatalogColumn(name, dbType, kind, null);
  }

  /** A column that cannot be captured, and why ("which ...", "it ..."). */
  public static CatalogColumn unsupported(String name, String dbType, String why) {
    return new CatalogColumn(name, dbType, null, why);
  }

  boolean capturable() {
    return kind != null;
  }

  ColumnInfo info() {
    return new ColumnInfo(name, dbType, kind);
  }
}
