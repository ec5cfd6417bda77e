package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Describes a cached table from the catalog: checks it can be captured, reads its columns and
 * primary key through its {@link Dialect}, and validates every name. Its helpers run the catalog
 * queries of the dialects.
 */
public final class Catalog {
  private Catalog() {}

  static TableSchema describe(Connection c, Dialect dialect, TableId id) throws SQLException {
    return describe(c, dialect, id, ColumnChoice.ALL);
  }

  /**
   * Describes {@code id} with the columns {@code choice} keeps.
   *
   * @throws IllegalArgumentException naming every problem of the table at once (a column of a type
   *     that cannot be captured, each with the configuration line that leaves it out; a chosen
   *     column that does not exist; a key column left out; no primary key; a bad name)
   */
  static TableSchema describe(Connection c, Dialect dialect, TableId id, ColumnChoice choice)
      throws SQLException {
    return describe(c, dialect, id, choice, true);
  }

  /**
   * As above; with {@code strict} false (while serving) an excluded column the table no longer has
   * is no problem: it is left out all the same.
   */
  static TableSchema describe(
      Connection c, Dialect dialect, TableId id, ColumnChoice choice, boolean strict)
      throws SQLException {
    Identifiers.validate(dialect, "schema", id.schema());
    Identifiers.validate(dialect, "table", id.name());
    dialect.checkTable(c, id);
    return describeLayout(c, dialect, id, choice, strict, dialect.tableProblems(c, id));
  }

  /**
   * As {@link #describe(Connection, Dialect, TableId, ColumnChoice)} without the table's own checks
   * (a base table, no foreign partition): its columns and key only, what a reconciliation range
   * compares with after its read (a few catalog queries fewer: on PostgreSQL the checks are the
   * costlier half of a description).
   */
  static TableSchema describeLayout(
      Connection c, Dialect dialect, TableId id, ColumnChoice choice, boolean strict)
      throws SQLException {
    return describeLayout(c, dialect, id, choice, strict, List.of());
  }

  /** As above, reporting {@code tableProblems} with the columns' (see {@link #describe}). */
  private static TableSchema describeLayout(
      Connection c,
      Dialect dialect,
      TableId id,
      ColumnChoice choice,
      boolean strict,
      List<String> tableProblems)
      throws SQLException {
    List<CatalogColumn> all = dialect.columns(c, id);
    List<String> problems = new ArrayList<>(tableProblems);
    List<String> names = all.stream().map(CatalogColumn::name).toList();
    for (String named : strict ? choice.named() : choice.chosen()) {
      if (!names.contains(named)) {
        problems.add(
            "the configuration names column "
                + named
                + " of "
                + id.qualified()
                + ", which does not exist "
                + "(columns: "
                + names
                + ")");
      }
    }
    List<String> pk = new ArrayList<>();
    try {
      pk.addAll(dialect.primaryKey(c, id));
      if (pk.isEmpty()) {
        problems.add(
            "table "
                + id.qualified()
                + " has no primary key and no unique index on NOT NULL columns; Tablecast caches "
                + "rows by key: add a PRIMARY KEY (or such a UNIQUE index) to cache it");
      }
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    List<ColumnInfo> columns = new ArrayList<>();
    List<String> unsupported = new ArrayList<>();
    for (CatalogColumn col : all) {
      try {
        Identifiers.validate(dialect, "column of table " + id.qualified() + ":", col.name());
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
        continue;
      }
      boolean key = pk.contains(col.name());
      if (!choice.includes(col.name()) && !key) {
        continue;
      }
      if (key && choice.excludeColumns().contains(col.name())) {
        problems.add(
            "column "
                + id.qualified()
                + "."
                + col.name()
                + " is part of the primary key and cannot be "
                + "left out ("
                + choice
                + ")");
      }
      if (!col.capturable()) {
        problems.add(
            "column "
                + id.qualified()
                + "."
                + col.name()
                + " has type "
                + col.dbType()
                + ", "
                + col.refusal()
                + (key ? "" : "; leave the column out with exclude_columns (below)"));
        if (!key) {
          unsupported.add(col.name());
        }
        continue;
      }
      columns.add(col.info());
    }
    if (!unsupported.isEmpty()) {
      List<String> excluded = new ArrayList<>(choice.excludeColumns());
      excluded.addAll(unsupported);
      problems.add(
          "to cache "
              + id.qualified()
              + " without "
              + (unsupported.size() == 1 ? "that column" : "those columns")
              + ", write its cached_tables entry as { table: "
              + id.qualified()
              + ", exclude_columns: "
              + excluded
              + " }");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", problems));
    }
    return new TableSchema(id, columns, pk);
  }

  /**
   * Refuses a table the catalog does not know ({@code tableType} null; naming those named alike) or
   * that is not a base table.
   */
  public static void requireBaseTable(Connection c, TableId id, String tableType)
      throws SQLException {
    if (tableType == null) {
      throw new MissingTableException(id, namedAlike(c, id));
    }
    if (!"BASE TABLE".equalsIgnoreCase(tableType)) {
      String wayOut =
          switch (tableType.toUpperCase(Locale.ROOT)) {
            case "VIEW", "SYSTEM VIEW" ->
                " (a view holds no rows of its own: cache the tables it reads)";
            case "FOREIGN" -> " (its rows live in another database: cache them from that one)";
            case "MATERIALIZED VIEW" ->
                " (no trigger fires on a materialized view, and REFRESH"
                    + " MATERIALIZED VIEW replaces its rows: cache the tables it reads)";
            case "SEQUENCE" -> " (a sequence holds a counter, not rows)";
            case "INDEX" -> " (cache the table it indexes)";
            default -> "";
          };
      throw new IllegalArgumentException(
          "table "
              + id.qualified()
              + (tableType.matches("(?i)[aeiou].*") ? " is an " : " is a ")
              + tableType
              + ", only base tables can be cached"
              + wayOut);
    }
  }

  /**
   * The tables whose schema and name equal {@code id}'s but for case and for quotes around them
   * ({@code "public"."Products"} for {@code public.Products}), as {@code schema.table}: what a
   * configuration that names no table probably meant.
   */
  static List<String> namedAlike(Connection c, TableId id) throws SQLException {
    TableId bare = new TableId(unquoted(id.schema()), unquoted(id.name()));
    List<String> alike = new ArrayList<>();
    try (PreparedStatement ps =
            prepare(
                c,
                "SELECT table_schema, table_name FROM information_schema.tables"
                    + " WHERE LOWER(table_schema) = LOWER(?) AND LOWER(table_name) = LOWER(?)",
                bare);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next() && alike.size() < 3) {
        String found = rs.getString(1) + "." + rs.getString(2);
        if (!found.equals(id.qualified())) {
          alike.add(found);
        }
      }
    }
    return alike;
  }

  private static String unquoted(String name) {
    boolean quoted =
        name.length() >= 2
            && (name.charAt(0) == '"' || name.charAt(0) == '`')
            && name.charAt(name.length() - 1) == name.charAt(0);
    return quoted ? name.substring(1, name.length() - 1) : name;
  }

  /** A statement with the table's schema and name bound as parameters 1 and 2. */
  public static PreparedStatement prepare(Connection c, String sql, TableId id)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setString(1, id.schema());
    ps.setString(2, id.name());
    return ps;
  }

  /** The first column of the first row of a query on the table, or null. */
  public static String single(Connection c, String sql, TableId id) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, id);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** The first column of every row of a query on the table. */
  public static List<String> strings(Connection c, String sql, TableId id) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, sql, id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Whether a query with one string parameter returns a row. */
  public static boolean exists(Connection c, String sql, String parameter) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
