package io.tablecast.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What a whole-table read costs the database and the driver in each shape a PostgreSQL server reads
 * rows in (docs/BENCHMARKS.md, "Whole tables read as one text per column"): each row as {@code
 * row_to_json} text, and each column as its own text (no JSON built), alternated, each fetched over
 * JDBC 1,000 rows at a time and every text taken, nothing encoded. Prints each read and the
 * medians. Usage: {@code java -cp tablecast-bench.jar io.tablecast.bench.ReadShapes JDBC_URL
 * SCHEMA.TABLE COLUMN,COLUMN,... [ROUNDS]}.
 */
public final class ReadShapes {
  private ReadShapes() {}

  public static void main(String[] args) throws SQLException {
    if (args.length < 3) {
      System.err.println("usage: ReadShapes JDBC_URL SCHEMA.TABLE COLUMN,COLUMN,... [ROUNDS]");
      System.exit(2);
    }
    String json = "SELECT row_to_json(t.*)::text FROM " + args[1] + " t";
    String texts =
        "SELECT t." + String.join(", t.", args[2].split(",")) + " FROM " + args[1] + " t";
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    List<Double> jsonSeconds = new ArrayList<>();
    List<Double> textSeconds = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(args[0])) {
      c.setAutoCommit(false);
      for (int round = 0; round < rounds; round++) {
        jsonSeconds.add(read(c, json, "row_to_json"));
        textSeconds.add(read(c, texts, "column texts"));
      }
      c.rollback();
    }
    System.out.printf(
        Locale.ROOT,
        "median: row_to_json %.2f s, column texts %.2f s%n",
        median(jsonSeconds),
        median(textSeconds));
  }

  private static double read(Connection c, String sql, String shape) throws SQLException {
    long t0 = System.nanoTime();
    long rows = 0;
    long chars = 0;
    try (Statement s = c.createStatement()) {
      s.setFetchSize(1000);
      try (ResultSet rs = s.executeQuery(sql)) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          rows++;
          for (int i = 1; i <= columns; i++) {
            String text = rs.getString(i);
            chars += text == null ? 0 : text.length();
          }
        }
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        Locale.ROOT, "%-12s %,d rows, %,d chars in %.2f s%n", shape, rows, chars, seconds);
    return seconds;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
