package io.tablecast.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import java.util.ArrayList;
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
 */
public record SessionPolicy(
    Set<String> tables, String filterColumn, JsonNode filterValue, Set<String> columns) {

  /** Every table, row and column (an open server, or a principal without restrictions). */
  public static final SessionPolicy ALLOW_ALL = new SessionPolicy(null, null, null, null);

  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale

  public SessionPolicy {
    tables = tables == null ? null : Set.copyOf(tables);
    columns = columns == null ? null : Set.copyOf(columns);
  }

  /** Whether the session may subscribe to {@code table}. */
  public boolean allowsTable(String table) {
    return tables == null || tables.contains(table);
  }

  /** True when rows pass unchanged (no row filter, no column list): changes need no rewriting. */
  public boolean passesRowsUnchanged() {
    return filterColumn == null && columns == null;
  }

  /** True when a column list keeps the session from seeing some columns. */
  public boolean dropsColumns() {
    return columns != null;
  }

  /** Whether the session may see this row (a null row is never seen). */
  public boolean matches(ObjectNode row) {
    if (row == null) {
      return false;
    }
    return filterColumn == null || RowFilter.sameValue(row.get(filterColumn), filterValue);
  }

  /**
   * The row with only the allowed columns and the primary key (the same row when all are allowed).
   */
  public ObjectNode project(ObjectNode row, List<String> primaryKey) {
    if (columns == null || row == null) {
      return row;
    }
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<String, JsonNode> e : row.properties()) {
      if (columns.contains(e.getKey()) || primaryKey.contains(e.getKey())) {
        out.set(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /** The column descriptions the session sees, in table order. */
  public List<ColumnInfo> project(List<ColumnInfo> columnInfos, List<String> primaryKey) {
    if (columns == null) {
      return columnInfos;
    }
    List<ColumnInfo> out = new ArrayList<>();
    for (ColumnInfo c : columnInfos) {
      if (columns.contains(c.name()) || primaryKey.contains(c.name())) {
        out.add(c);
      }
    }
    return out;
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
