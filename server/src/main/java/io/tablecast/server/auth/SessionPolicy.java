package io.tablecast.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.shape.RowPredicate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one session may read: a value (equal policies are equal records), so that the hub can encode
 * a batch once per (table set, encoding, policy) and share the bytes between sessions with the same
 * policy.
 *
 * @param tables allowed tables; null = all
 * @param filterColumn the row filter's column; null = every row
 * @param filterValue the value {@code filterColumn} must have
 * @param columns allowed columns besides the primary key; null = all
 * @param shapes the rows and columns the client chose of some tables (a subscription shape), seen
 *     within what the rest allows; empty for none
 */
public record SessionPolicy(
    Set<String> tables,
    String filterColumn,
    JsonNode filterValue,
    Set<String> columns,
    Map<String, Shape> shapes) {

  /** Every table, row and column (an open server, or a principal without restrictions). */
  public static final SessionPolicy ALLOW_ALL = new SessionPolicy(null, null, null, null);

  /**
   * The rows and columns a client chose of one table.
   *
   * @param filter the rows, or null for all
   * @param columns the columns besides the primary key, or null for all
   */
  public record Shape(RowPredicate filter, Set<String> columns) {
    public Shape {
      columns = columns == null ? null : Set.copyOf(columns);
    }

    /** Whether the filter has a subquery. */
    public boolean readsOtherTables() {
      return filter != null && filter.readsOtherTables();
    }
  }

  /** Whether the shape of {@code table} reads another table (a subquery). */
  public boolean readsOtherTables(String table) {
    Shape shape = shapes.get(table);
    return shape != null && shape.readsOtherTables();
  }

  /** A policy without shapes. */
  public SessionPolicy(
      Set<String> tables, String filterColumn, JsonNode filterValue, Set<String> columns) {
    this(tables, filterColumn, filterValue, columns, Map.of());
  }

  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale

  public SessionPolicy {
    tables = tables == null ? null : Set.copyOf(tables);
    columns = columns == null ? null : Set.copyOf(columns);
    shapes = shapes == null ? Map.of() : Map.copyOf(shapes);
  }

  /** This policy with {@code shape} for {@code table} (null: none). */
  public SessionPolicy withShape(String table, Shape shape) {
    Map<String, Shape> next = new HashMap<>(shapes);
    if (shape == null) {
      next.remove(table);
    } else {
      next.put(table, shape);
    }
    return new SessionPolicy(tables, filterColumn, filterValue, columns, next);
  }

  /** The shape the client chose of {@code table}, or null. */
  public Shape shape(String table) {
    return shapes.get(table);
  }

  /** True when some rows of {@code table} may be hidden from the session (a row filter). */
  public boolean filters(String table) {
    Shape shape = shapes.get(table);
    return filterColumn != null || (shape != null && shape.filter() != null);
  }

  /** Whether the session may see this row of {@code table} (a null row is never seen). */
  public boolean matches(String table, ObjectNode row) {
    if (!matches(row)) {
      return false;
    }
    Shape shape = shapes.get(table);
    return shape == null || shape.filter() == null || shape.filter().matches(row::get);
  }

  /**
   * As {@link #matches(String, ObjectNode)} for the image of a row before the batch being sent: a
   * subquery of the shape reads its table as it was before that batch.
   */
  public boolean matchedBefore(String table, ObjectNode row) {
    if (!matches(row)) {
      return false;
    }
    Shape shape = shapes.get(table);
    return shape == null || shape.filter() == null || shape.filter().matchedBefore(row::get);
  }

  /** Whether the shape of {@code table}, if any, lets this row through (the policy aside). */
  public boolean shapeMatches(String table, ObjectNode row) {
    Shape shape = shapes.get(table);
    return row != null
        && (shape == null || shape.filter() == null || shape.filter().matches(row::get));
  }

  /** True when the session sees only some columns of {@code table}. */
  public boolean dropsColumns(String table) {
    Shape shape = shapes.get(table);
    return columns != null || (shape != null && shape.columns() != null);
  }

  /** Whether the session sees {@code column} of {@code table} (a key column it always sees). */
  private boolean sees(String table, String column, List<String> primaryKey) {
    if (primaryKey.contains(column)) {
      return true;
    }
    Shape shape = shapes.get(table);
    return (columns == null || columns.contains(column))
        && (shape == null || shape.columns() == null || shape.columns().contains(column));
  }

  /**
   * The row of {@code table} with only the columns the session sees (the same row when it sees
   * all).
   */
  public ObjectNode project(String table, ObjectNode row, List<String> primaryKey) {
    if (!dropsColumns(table) || row == null) {
      return row;
    }
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<String, JsonNode> e : row.properties()) {
      if (sees(table, e.getKey(), primaryKey)) {
        out.set(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /** The column descriptions of {@code table} the session sees, in table order. */
  public List<ColumnInfo> project(
      String table, List<ColumnInfo> columnInfos, List<String> primaryKey) {
    if (!dropsColumns(table)) {
      return columnInfos;
    }
    List<ColumnInfo> out = new ArrayList<>();
    for (ColumnInfo c : columnInfos) {
      if (sees(table, c.name(), primaryKey)) {
        out.add(c);
      }
    }
    return out;
  }

  /** Whether the session may subscribe to {@code table}. */
  public boolean allowsTable(String table) {
    return tables == null || tables.contains(table);
  }

  /**
   * True when rows pass unchanged (no row filter, no column list, no shape): changes need no
   * rewriting.
   */
  public boolean passesRowsUnchanged() {
    return filterColumn == null && columns == null && shapes.isEmpty();
  }

  /**
   * Whether the principal's row filter lets the session see this row, whatever the table's shape (a
   * null row is never seen).
   */
  public boolean matches(ObjectNode row) {
    if (row == null) {
      return false;
    }
    return filterColumn == null || RowFilter.sameValue(row.get(filterColumn), filterValue);
  }

  /**
   * Whether a row whose filter column holds {@code value} (JSON null for NULL, Java null when the
   * table has no such column) is one the session may see: {@link #matches} for one value, so a
   * snapshot reads only that column of each row to count the rows it sends.
   */
  public boolean matchesValue(JsonNode value) {
    return filterColumn == null || RowFilter.sameValue(value, filterValue);
  }
}
