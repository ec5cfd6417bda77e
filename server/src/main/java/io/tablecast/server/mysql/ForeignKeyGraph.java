package io.tablecast.server.mysql;

import io.tablecast.server.capture.Catalog;
import io.tablecast.server.capture.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MySQL/MariaDB: the foreign keys whose actions (CASCADE, SET NULL, SET DEFAULT) can change a
 * cached table, read from {@code information_schema}: those of the cached tables, then those of
 * their parents, and so on up, whatever schema or configuration the parents belong to. Two queries
 * tell the tables of the cached tables' schemas that have no acting key; each other table costs one
 * indexed catalog lookup ({@code REFERENTIAL_CONSTRAINTS} by schema and table; a second one, {@code
 * KEY_COLUMN_USAGE}, when it has acting keys), so the graph is cheap to read again on a schedule.
 * The catalog shows only what the connection's user may see.
 */
final class ForeignKeyGraph {
  private final List<ForeignKey> keys;
  private final Map<TableId, List<ForeignKey>> byParent = new LinkedHashMap<>();

  ForeignKeyGraph(List<ForeignKey> keys) {
    this.keys = List.copyOf(keys);
    for (ForeignKey k : keys) {
      byParent.computeIfAbsent(k.parent(), p -> new ArrayList<>()).add(k);
    }
  }

  /** Reads the acting foreign keys into {@code cached}, directly or through other tables. */
  static ForeignKeyGraph load(Connection c, Collection<TableId> cached) throws SQLException {
    Deque<TableId> todo = new ArrayDeque<>(cached);
    Set<TableId> seen = new HashSet<>();
    List<ForeignKey> keys = new ArrayList<>();
    Set<TableId> withoutActingKeys = withoutActingKeys(c, SchemaReads.readWhole(c, cached));
    while (!todo.isEmpty()) {
      TableId child = todo.poll();
      if (!seen.add(child) || withoutActingKeys.contains(child)) {
        continue;
      }
      for (ForeignKey k : actingKeysOf(c, child)) {
        keys.add(k);
        todo.add(k.parent());
      }
    }
    return new ForeignKeyGraph(keys);
  }

  /** Every acting foreign key read. */
  List<ForeignKey> keys() {
    return keys;
  }

  /** The acting foreign keys whose parent is {@code table}. */
  List<ForeignKey> into(TableId table) {
    return byParent.getOrDefault(table, List.of());
  }

  /** The tables that are the parent of an acting foreign key. */
  Set<TableId> parents() {
    return byParent.keySet();
  }

  /**
   * The tables of {@code schemas} (those read whole: {@link SchemaReads}), as the catalog names
   * them, that have no acting foreign key: two queries for all of them (one lookup per table cost a
   * server of 400 cached tables 400 queries a check). A table named otherwise in the configuration
   * (case folded by {@code lower_case_table_names}) is not among them and is looked up alone, as
   * before.
   */
  private static Set<TableId> withoutActingKeys(Connection c, List<String> schemas)
      throws SQLException {
    Set<TableId> out = new HashSet<>();
    if (schemas.isEmpty()) {
      return out;
    }
    String in = String.join(", ", Collections.nCopies(schemas.size(), "?"));
    forEachRow(
        c,
        "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ("
            + in
            + ")",
        schemas,
        rs -> out.add(new TableId(rs.getString(1), rs.getString(2))));
    forEachRow(
        c,
        "SELECT CONSTRAINT_SCHEMA, TABLE_NAME, DELETE_RULE, UPDATE_RULE FROM"
            + " information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN ("
            + in
            + ")",
        schemas,
        rs -> {
          if (ForeignKey.Rule.of(rs.getString(3)).changesChildren()
              || ForeignKey.Rule.of(rs.getString(4)).changesChildren()) {
            out.remove(new TableId(rs.getString(1), rs.getString(2)));
          }
        });
    return out;
  }

  private interface RowReader {
    void read(ResultSet rs) throws SQLException;
  }

  private static void forEachRow(Connection c, String sql, List<String> params, RowReader reader)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.size(); i++) {
        ps.setString(i + 1, params.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          reader.read(rs);
        }
      }
    }
  }

  private static List<ForeignKey> actingKeysOf(Connection c, TableId child) throws SQLException {
    Map<String, ForeignKey.Rule[]> rules = new LinkedHashMap<>();
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT CONSTRAINT_NAME, DELETE_RULE, UPDATE_RULE FROM "
                    + "information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?",
                child);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        ForeignKey.Rule onDelete = ForeignKey.Rule.of(rs.getString(2));
        ForeignKey.Rule onUpdate = ForeignKey.Rule.of(rs.getString(3));
        if (onDelete.changesChildren() || onUpdate.changesChildren()) {
          rules.put(rs.getString(1), new ForeignKey.Rule[] {onDelete, onUpdate});
        }
      }
    }
    if (rules.isEmpty()) {
      return List.of();
    }
    Map<String, List<String[]>> columns = new LinkedHashMap<>();
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, "
                    + "REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
                    + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND REFERENCED_TABLE_NAME IS NOT NULL "
                    + "ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION",
                child);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (rules.containsKey(rs.getString(1))) {
          columns
              .computeIfAbsent(rs.getString(1), n -> new ArrayList<>())
              .add(
                  new String[] {
                    rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)
                  });
        }
      }
    }
    List<ForeignKey> out = new ArrayList<>();
    for (Map.Entry<String, List<String[]>> e : columns.entrySet()) {
      List<String> childColumns = new ArrayList<>();
      List<String> parentColumns = new ArrayList<>();
      for (String[] col : e.getValue()) {
        childColumns.add(col[0]);
        parentColumns.add(col[3]);
      }
      String[] first = e.getValue().get(0);
      ForeignKey.Rule[] r = rules.get(e.getKey());
      out.add(
          new ForeignKey(
              e.getKey(),
              child,
              childColumns,
              new TableId(first[1], first[2]),
              parentColumns,
              r[0],
              r[1]));
    }
    return out;
  }
}
