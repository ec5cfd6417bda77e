package io.tablecast.it;

import static org.awaitility.Awaitility.await;

import io.tablecast.client.Column;
import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Compares generic mirrors with {@code SELECT *} of their tables, value by value in exact form
 * ({@link ExactValues} for the types it knows, {@link DatabaseForms} for the others), and says what
 * differs in words: per table the row counts, then the first keys missing from the mirror, present
 * only in the mirror, or with different values (each differing column with both sides).
 */
final class MirrorsVersusTables implements AutoCloseable {
  private static final int KEYS_SHOWN = 5;
  private static final int VALUE_SHOWN = 100;

  private final TestDatabases.Isolated db;
  private final boolean postgres;
  private final Connection c;
  private final DatabaseForms forms;

  MirrorsVersusTables(TestDatabases.Isolated db) throws SQLException {
    this.db = db;
    this.postgres = db.kind() == TestDatabases.Kind.POSTGRESQL;
    this.c = db.connect();
    if (!postgres) {
      try (Statement s = c.createStatement()) {
        s.execute("SET time_zone = '+00:00'"); // TIMESTAMP columns read as UTC (ExactValues)
      }
    }
    this.forms = new DatabaseForms(c, postgres);
  }

  /**
   * Waits until every mirror equals its table (mirrors keyed by unqualified table name); fails
   * after {@code atMost} with the differences of every table that still differs.
   */
  void awaitEqual(
      String what, Map<String, TableMirror<Map<String, Object>>> mirrors, Duration atMost) {
    AtomicReference<String> last = new AtomicReference<>("");
    try {
      await()
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                last.set(differences(mirrors));
                return last.get().isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          what
              + ": mirrors still differ from their tables "
              + atMost.toSeconds()
              + " s after the writes stopped\n"
              + last.get());
    }
  }

  /** The differences of every table in {@code mirrors}, empty when all are equal. */
  String differences(Map<String, TableMirror<Map<String, Object>>> mirrors) throws SQLException {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, TableMirror<Map<String, Object>>> e :
        new TreeMap<>(mirrors).entrySet()) {
      sb.append(differences(e.getKey(), e.getValue()));
    }
    return sb.toString();
  }

  /** The differences between one mirror and its table, empty when equal. */
  String differences(String table, TableMirror<Map<String, Object>> mirror) throws SQLException {
    List<Column> columns = mirror.columns();
    String[] pk = mirror.primaryKey().toArray(new String[0]);
    Map<String, Map<String, String>> inMirror = mirrorRows(table, mirror, columns, pk);
    Map<String, Map<String, String>> inTable = tableRows(table, columns, pk);
    if (inMirror.equals(inTable)) {
      return "";
    }
    List<String> missing = new ArrayList<>();
    List<String> extra = new ArrayList<>();
    List<String> different = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> row : inTable.entrySet()) {
      Map<String, String> mirrored = inMirror.get(row.getKey());
      if (mirrored == null) {
        missing.add(row.getKey() + " " + shown(row.getValue()));
      } else if (!mirrored.equals(row.getValue())) {
        different.add(row.getKey() + " " + columnDifferences(mirrored, row.getValue()));
      }
    }
    for (Map.Entry<String, Map<String, String>> row : inMirror.entrySet()) {
      if (!inTable.containsKey(row.getKey())) {
        extra.add(row.getKey() + " " + shown(row.getValue()));
      }
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                "%s: the mirror has %d rows, the table %d: %d missing from "
                    + "the mirror, %d only in the mirror, %d with different values%n",
                table,
                inMirror.size(),
                inTable.size(),
                missing.size(),
                extra.size(),
                different.size()));
    list(sb, "missing from the mirror", missing);
    list(sb, "only in the mirror", extra);
    list(sb, "different (mirror / table)", different);
    return sb.toString();
  }

  private static void list(StringBuilder sb, String what, List<String> keys) {
    for (int i = 0; i < Math.min(KEYS_SHOWN, keys.size()); i++) {
      sb.append("    ").append(what).append(": key ").append(keys.get(i)).append('\n');
    }
    if (keys.size() > KEYS_SHOWN) {
      sb.append("    ... and ")
          .append(keys.size() - KEYS_SHOWN)
          .append(" more ")
          .append(what)
          .append('\n');
    }
  }

  private static String columnDifferences(Map<String, String> mirror, Map<String, String> table) {
    StringBuilder sb = new StringBuilder();
    for (String column : new TreeSet<>(union(mirror.keySet(), table.keySet()))) {
      if (!Objects.equals(mirror.get(column), table.get(column))) {
        sb.append(sb.length() == 0 ? "" : "; ")
            .append(column)
            .append(": ")
            .append(mirror.containsKey(column) ? cut(mirror.get(column)) : "(no such column)")
            .append(" / ")
            .append(table.containsKey(column) ? cut(table.get(column)) : "(no such column)");
      }
    }
    return sb.toString();
  }

  private static List<String> union(java.util.Set<String> a, java.util.Set<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static String shown(Map<String, String> row) {
    Map<String, String> out = new LinkedHashMap<>();
    row.forEach((k, v) -> out.put(k, cut(v)));
    return out.toString();
  }

  private static String cut(String v) {
    return v == null || v.length() <= VALUE_SHOWN
        ? v
        : v.substring(0, VALUE_SHOWN) + "...(" + v.length() + " chars)";
  }

  private Map<String, Map<String, String>> mirrorRows(
      String table, TableMirror<Map<String, Object>> mirror, List<Column> columns, String[] pk) {
    Map<String, Column> byName = byName(columns);
    Map<String, Map<String, String>> rows = new TreeMap<>();
    for (Map<String, Object> r : mirror.rows()) {
      Map<String, String> row = new TreeMap<>();
      r.forEach(
          (name, v) -> {
            Column column = byName.get(name);
            row.put(
                name,
                column == null || ExactValues.hasExactForm(column, postgres)
                    ? ExactValues.fromMirror(v, column)
                    : forms.fromMirror(v, db.table(table), column));
          });
      rows.put(Pipeline.keyOf(row, pk), row);
    }
    return rows;
  }

  private Map<String, Map<String, String>> tableRows(
      String table, List<Column> columns, String[] pk) throws SQLException {
    Map<String, Column> byName = byName(columns);
    Map<String, Map<String, String>> rows = new TreeMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(selectAll(table, byName))) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        Map<String, String> row = new TreeMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          String name = meta.getColumnLabel(i);
          Column column = byName.get(name);
          row.put(
              name,
              column == null || ExactValues.hasExactForm(column, postgres)
                  ? ExactValues.fromDatabase(rs, i, column, postgres)
                  : forms.fromDatabase(rs, i, db.table(table), column));
        }
        rows.put(Pipeline.keyOf(row, pk), row);
      }
    }
    return rows;
  }

  /**
   * {@code SELECT *} of the table, except that MySQL/MariaDB single-precision {@code FLOAT} columns
   * are read as {@code CAST(col AS DOUBLE)}: the text protocol prints a FLOAT with 6 significant
   * digits (8.652396 arrives as 8.6524, another float), the cast gives its exact value.
   */
  private String selectAll(String table, Map<String, Column> byName) throws SQLException {
    if (postgres) {
      return "SELECT * FROM " + db.table(table);
    }
    List<String> select = new java.util.ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + db.table(table) + " WHERE 1 = 0")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        String name = meta.getColumnLabel(i);
        String quoted = "`" + name.replace("`", "``") + "`";
        Column column = byName.get(name);
        boolean single =
            column != null
                && column.type() == io.tablecast.client.ColumnType.FLOAT
                && column.databaseType().toLowerCase(java.util.Locale.ROOT).startsWith("float");
        select.add(single ? "CAST(" + quoted + " AS DOUBLE) AS " + quoted : quoted);
      }
    }
    return "SELECT " + String.join(", ", select) + " FROM " + db.table(table);
  }

  private static Map<String, Column> byName(List<Column> columns) {
    Map<String, Column> out = new HashMap<>();
    columns.forEach(col -> out.put(col.name(), col));
    return out;
  }

  @Override
  public void close() throws SQLException {
    c.close();
  }
}
