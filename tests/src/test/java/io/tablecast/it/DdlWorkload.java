package io.tablecast.it;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Rows and DDL at random on two tables, {@code items} and {@code others} ({@code id int PRIMARY
 * KEY, v int NOT NULL, s varchar(20)}, 30 rows each): writers insert, update (one row, or six by a
 * range) and delete; one thread alters the tables every 0.3-1.2 s: adds a column (an {@code int}
 * with a default, or a {@code varchar}), drops, renames or retypes one it added, writes one it
 * added, widens the primary key to {@code (id, v)} and narrows it back, or adds a column while an
 * open transaction holds the table for 1.2-2.7 s (the {@code ALTER TABLE} waits for it, and every
 * read of the table waits behind it). A statement that fails (a duplicate key, a key that cannot be
 * narrowed back because two rows share an id) is left for the next.
 */
final class DdlWorkload {
  static final List<String> TABLES = List.of("items", "others");

  private DdlWorkload() {}

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    for (String t : TABLES) {
      ddl.add("CREATE TABLE " + t + " (id int PRIMARY KEY, v int NOT NULL, s varchar(20))");
      for (int i = 1; i <= 30; i++) {
        ddl.add("INSERT INTO " + t + " VALUES (" + i + ", " + i + ", 's" + i + "')");
      }
    }
    return ddl;
  }

  /**
   * The workload's threads (not started): two writers and the thread that alters the tables, with
   * the random choices of {@code seed}; what they throw goes to {@code errors}.
   */
  static List<Thread> threads(
      Pipeline p, Kind kind, long seed, AtomicBoolean stop, List<Throwable> errors) {
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      Random r = new Random(seed * 31 + w);
      threads.add(UnderLoad.thread(errors, () -> write(p, r, stop)));
    }
    Random alters = new Random(seed);
    threads.add(UnderLoad.thread(errors, () -> alter(p, kind, alters, stop)));
    return threads;
  }

  /** Inserts, updates and deletes rows at random until {@code stop}. */
  static void write(Pipeline p, Random r, AtomicBoolean stop) throws Exception {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      while (!stop.get()) {
        String t = TABLES.get(r.nextInt(TABLES.size()));
        int id = 1 + r.nextInt(60);
        String sql =
            switch (r.nextInt(5)) {
              case 0, 1 ->
                  String.format(
                      "INSERT INTO %s (id, v, s) VALUES (%d, %d, 'x%d')",
                      t, id, r.nextInt(1000), r.nextInt(100));
              case 2 -> String.format("UPDATE %s SET v = %d WHERE id = %d", t, r.nextInt(1000), id);
              case 3 ->
                  String.format(
                      "UPDATE %s SET s = 'm%d' WHERE id BETWEEN %d AND %d",
                      t, r.nextInt(100), id, id + 5);
              default -> String.format("DELETE FROM %s WHERE id = %d", t, id);
            };
        try {
          s.executeUpdate(sql);
        } catch (SQLException duplicateKeyOrLockWait) {
          // the next one
        }
        Thread.sleep(r.nextInt(4)); // pacing only
      }
    }
  }

  /** Alters the tables at random until {@code stop}. */
  static void alter(Pipeline p, Kind kind, Random r, AtomicBoolean stop) throws Exception {
    List<List<String>> added = new ArrayList<>(); // per table: the columns added, x* int
    TABLES.forEach(t -> added.add(new ArrayList<>()));
    boolean[] wideKey = new boolean[TABLES.size()];
    for (int n = 0; !stop.get(); n++) {
      Thread.sleep(300 + r.nextInt(900)); // pacing between statements
      int ti = r.nextInt(TABLES.size());
      String t = TABLES.get(ti);
      List<String> cols = added.get(ti);
      int what = cols.isEmpty() ? 0 : r.nextInt(7);
      List<String> sql = new ArrayList<>();
      switch (what) {
        case 0 -> {
          String c = (r.nextBoolean() ? "x" : "y") + n;
          cols.add(c);
          sql.add(
              "ALTER TABLE "
                  + t
                  + " ADD COLUMN "
                  + c
                  + (c.startsWith("x") ? " int DEFAULT " + n : " varchar(8)"));
        }
        case 1 ->
            sql.add("ALTER TABLE " + t + " DROP COLUMN " + cols.remove(r.nextInt(cols.size())));
        case 2 -> {
          int i = r.nextInt(cols.size());
          String renamed = cols.get(i).charAt(0) + "" + n;
          sql.add("ALTER TABLE " + t + " RENAME COLUMN " + cols.get(i) + " TO " + renamed);
          cols.set(i, renamed);
        }
        case 3 -> {
          String c = cols.get(r.nextInt(cols.size()));
          String type = c.startsWith("x") ? "bigint" : "varchar(12)";
          sql.add(
              kind == Kind.POSTGRESQL
                  ? "ALTER TABLE " + t + " ALTER COLUMN " + c + " TYPE " + type
                  : "ALTER TABLE " + t + " MODIFY " + c + " " + type);
        }
        case 4 -> {
          String c = cols.get(r.nextInt(cols.size()));
          sql.add(
              String.format(
                  "UPDATE %s SET %s = %s WHERE id %% 3 = %d",
                  t, c, c.startsWith("x") ? "id * " + n : "'w" + n + "'", r.nextInt(3)));
        }
        case 5 -> {
          wideKey[ti] = !wideKey[ti];
          sql.addAll(rekey(kind, t, wideKey[ti]));
        }
        default -> {
          String c = "x" + n;
          cols.add(c);
          UnderLoad.ddlQueuedBehindAReader(
              p,
              t,
              "ALTER TABLE " + t + " ADD COLUMN " + c + " int DEFAULT 7",
              1200 + r.nextInt(1500));
        }
      }
      try {
        p.sql(sql.toArray(new String[0]));
      } catch (IllegalStateException refused) {
        if (what == 5) {
          wideKey[ti] = !wideKey[ti];
        }
      }
    }
  }

  /**
   * The statements that make {@code (id, v)} the key, or {@code id} again (one row per id kept).
   */
  private static List<String> rekey(Kind kind, String t, boolean wide) {
    boolean pg = kind == Kind.POSTGRESQL;
    List<String> sql = new ArrayList<>();
    if (!wide) {
      sql.add(
          pg
              ? "DELETE FROM " + t + " a USING " + t + " b WHERE a.id = b.id AND a.v > b.v"
              : "DELETE a FROM " + t + " a JOIN " + t + " b ON a.id = b.id AND a.v > b.v");
    }
    String key = wide ? "(id, v)" : "(id)";
    sql.add(
        pg
            ? "ALTER TABLE " + t + " DROP CONSTRAINT " + t + "_pkey, ADD PRIMARY KEY " + key
            : "ALTER TABLE " + t + " DROP PRIMARY KEY, ADD PRIMARY KEY " + key);
    return sql;
  }
}
