package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the capture check needs to describe again. Describing a table takes about six catalog
 * queries; describing every cached table at every check cost a server of 400 tables about 2,400
 * queries each 10 s (7 % of a core in the server and as much in MariaDB, idle). Instead the check
 * reads, in four queries for all the cached tables' schemas, the catalog rows a description is made
 * of ({@code TABLES}: type and engine; {@code COLUMNS}; the unique indexes in {@code STATISTICS};
 * {@code CHECK_CONSTRAINTS}, which tell MariaDB's JSON columns), and describes again only a table
 * whose rows differ from those it last saw while the table matched its description. A table the
 * look does not find under its configured name (case folded by {@code lower_case_table_names}, or
 * gone), or in a schema not read whole ({@link SchemaReads}: a few tables of a large schema), is
 * described every time, as before.
 */
final class CatalogFingerprints {
  private record Seen(String rows, TableSchema schema) {}

  private final Map<TableId, Seen> seen = new HashMap<>();
  private Map<TableId, String> current = Map.of();

  /**
   * Reads the catalog rows of every table in the schemas of {@code tables}; on failure (a catalog
   * table this server lacks) every table is described.
   */
  void look(Connection c, Collection<TableId> tables) {
    try {
      current = read(c, tables);
    } catch (SQLException e) {
      current = Map.of();
    }
  }

  /**
   * Whether {@code known}, the table's description in the plan, may be taken as current without
   * describing it again: its catalog rows are those seen when a description last equalled it.
   */
  boolean unchanged(TableSchema known) {
    String rows = current.get(known.id());
    Seen last = seen.get(known.id());
    return rows != null && last != null && last.rows().equals(rows) && last.schema().equals(known);
  }

  /** The table was described again and equals {@code known}: its catalog rows are remembered. */
  void matched(TableSchema known) {
    String rows = current.get(known.id());
    if (rows == null) {
      seen.remove(known.id());
    } else {
      seen.put(known.id(), new Seen(rows, known));
    }
  }

  /** The table differs from its description, or could not be described: it is looked at again. */
  void differs(TableId id) {
    seen.remove(id);
  }

  private static Map<TableId, String> read(Connection c, Collection<TableId> tables)
      throws SQLException {
    List<String> schemas = SchemaReads.readWhole(c, tables);
    if (schemas.isEmpty()) {
      return Map.of();
    }
    Map<TableId, StringBuilder> rows = new HashMap<>();
    String in = String.join(", ", Collections.nCopies(schemas.size(), "?"));
    append(
        c,
        rows,
        schemas,
        'T',
        "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES "
            + "WHERE TABLE_SCHEMA IN ("
            + in
            + ")");
    append(
        c,
        rows,
        schemas,
        'C',
        "SELECT TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE,"
            + " GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ("
            + in
            + ") ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION");
    append(
        c,
        rows,
        schemas,
        'I',
        "SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, SUB_PART, NULLABLE"
            + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA IN ("
            + in
            + ") AND NON_UNIQUE = 0 ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX");
    append(
        c,
        rows,
        schemas,
        'K',
        "SELECT CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM"
            + " information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN ("
            + in
            + ") ORDER BY CONSTRAINT_SCHEMA, TABLE_NAME, CONSTRAINT_NAME");
    Map<TableId, String> out = new HashMap<>();
    rows.forEach((id, sb) -> out.put(id, sb.toString()));
    return out;
  }

  /**
   * Appends each row's columns after its schema and table to its table's text, one line per row,
   * behind {@code tag} (which query it came from).
   */
  private static void append(
      Connection c, Map<TableId, StringBuilder> rows, List<String> schemas, char tag, String sql)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < schemas.size(); i++) {
        ps.setString(i + 1, schemas.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          StringBuilder sb =
              rows.computeIfAbsent(
                  new TableId(rs.getString(1), rs.getString(2)), k -> new StringBuilder());
          sb.append(tag);
          for (int i = 3; i <= n; i++) {
            String v = rs.getString(i);
            sb.append(
                    v == null
                        ? "\\N"
                        : v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n"))
                .append('\t');
          }
          sb.append('\n');
        }
      }
    }
  }
}
