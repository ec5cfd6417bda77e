package io.tablecast.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Rows and children at random on a PostgreSQL inheritance tree: {@code things (id int PRIMARY KEY,
 * v int NOT NULL)} and up to four children {@code things_c<k>} ({@code id} from {@code k * 100},
 * and a column of their own), two of them there at the start. Writers insert, update and delete
 * through the parent (which reaches every child) and in the children by name (also a child that has
 * left the tree: its changes must stay out). One thread changes the tree every 0.3-1.2 s: creates a
 * child (with rows copied in by {@code INSERT ... SELECT}, or a grandchild under it), takes one out
 * ({@code NO INHERIT}, also while an open transaction holds the parent) and puts it back ({@code
 * INHERIT}), drops or truncates one, or runs {@code TRUNCATE ONLY} on the parent. None of these but
 * the inserts fires a row trigger. Keys are unique across the tree (each table has its own range).
 */
final class InheritanceWorkload {
  static final int CHILDREN = 4;

  private InheritanceWorkload() {}

  static List<String> ddl() {
    return List.of(
        "CREATE TABLE things (id int PRIMARY KEY, v int NOT NULL)",
        "INSERT INTO things SELECT g, g FROM generate_series(1, 30) g",
        child(1),
        "INSERT INTO things_c1 SELECT 100 + g, g, 'c' FROM generate_series(1, 20) g",
        child(2),
        "INSERT INTO things_c2 SELECT 200 + g, g, 'c' FROM generate_series(1, 20) g");
  }

  private static String child(int k) {
    return "CREATE TABLE things_c" + k + " (own text, PRIMARY KEY (id)) INHERITS (things)";
  }

  /** Inserts, updates and deletes rows at random until {@code stop}. */
  static void write(Pipeline p, Random r, AtomicBoolean stop) throws Exception {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      while (!stop.get()) {
        int k = r.nextInt(CHILDREN + 1); // 0: the parent
        String t = k == 0 ? "things" : "things_c" + k;
        int id = k * 100 + 1 + r.nextInt(40);
        String sql =
            switch (r.nextInt(6)) {
              case 0, 1 ->
                  String.format("INSERT INTO %s (id, v) VALUES (%d, %d)", t, id, r.nextInt(1000));
              case 2 -> String.format("UPDATE %s SET v = %d WHERE id = %d", t, r.nextInt(1000), id);
              case 3 ->
                  String.format(
                      "UPDATE things SET v = v + 1 WHERE id BETWEEN %d AND %d", id, id + 5);
              case 4 -> String.format("DELETE FROM things WHERE id = %d", id); // through the parent
              default -> String.format("DELETE FROM %s WHERE id = %d", t, id);
            };
        try {
          s.executeUpdate(sql);
        } catch (SQLException duplicateKeyOrGone) {
          // the next one
        }
        Thread.sleep(r.nextInt(4)); // pacing only
      }
    }
  }

  /** Changes the tree at random until {@code stop}. */
  static void maintain(Pipeline p, Random r, AtomicBoolean stop) throws Exception {
    int applied = 0;
    int n = 0;
    for (; !stop.get(); n++) {
      Thread.sleep(300 + r.nextInt(900)); // pacing between statements
      int k = 1 + r.nextInt(CHILDREN);
      String t = "things_c" + k;
      List<String> sql;
      if (r.nextInt(8) == 0) {
        sql = List.of("TRUNCATE ONLY things");
      } else if (!exists(p, t)) {
        sql =
            r.nextBoolean()
                ? List.of(
                    child(k),
                    String.format(
                        "INSERT INTO %s SELECT %d + g, g, 'n' FROM generate_series(1, 10) g",
                        t, k * 100))
                : List.of(
                    child(k),
                    String.format("CREATE TABLE %s_g (PRIMARY KEY (id)) INHERITS (%s)", t, t),
                    String.format(
                        "INSERT INTO %s_g SELECT %d + g, g, 'g' FROM generate_series(50, 55) g",
                        t, k * 100));
      } else if (!inTree(p, t)) {
        sql =
            List.of(
                r.nextInt(3) > 0
                    ? "ALTER TABLE " + t + " INHERIT things"
                    : "DROP TABLE " + t + " CASCADE");
      } else {
        String out = "ALTER TABLE " + t + " NO INHERIT things";
        sql =
            switch (r.nextInt(4)) {
              case 0 -> List.of(out);
              case 1 -> {
                UnderLoad.ddlQueuedBehindAReader(p, "things", out, 1200 + r.nextInt(1500));
                yield List.of();
              }
              case 2 -> List.of("TRUNCATE " + t);
              default -> List.of("DROP TABLE " + t + " CASCADE");
            };
      }
      for (String q : sql) {
        try {
          p.sql(q);
          applied++;
        } catch (IllegalStateException refused) {
          break; // the next one
        }
      }
    }
    System.out.printf("inheritance maintenance: %d statements applied in %d rounds%n", applied, n);
  }

  private static boolean exists(Pipeline p, String table) throws SQLException {
    return count(
            p,
            "SELECT count(*) FROM pg_class WHERE relname = '"
                + table
                + "' AND relnamespace = current_schema()::regnamespace")
        > 0;
  }

  private static boolean inTree(Pipeline p, String table) throws SQLException {
    return count(p, "SELECT count(*) FROM pg_inherits WHERE inhrelid = '" + table + "'::regclass")
        > 0;
  }

  private static long count(Pipeline p, String sql) throws SQLException {
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
