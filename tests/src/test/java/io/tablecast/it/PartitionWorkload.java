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
 * Rows and partition maintenance at random on {@code events} ({@code id int, region int, v int},
 * key {@code (id, region)}), partitioned by list of {@code region}, four of the six regions with a
 * partition {@code events_r<region>} at the start. Writers insert, update (one row, a range, or a
 * row moved to another region) and delete through the table, and write the partitions by name (on
 * PostgreSQL also a partition that has left the table: its changes must stay out). One thread
 * changes the partitions every 0.3-1.2 s: on PostgreSQL creates one (plain or itself partitioned by
 * range), attaches a detached one back, detaches one (also {@code CONCURRENTLY}, and while an open
 * transaction holds the table), drops or truncates one, adds or drops a default partition and
 * splits a region's rows out of it (in one transaction, as PostgreSQL's manual does); on
 * MySQL/MariaDB adds, drops, truncates, reorganizes or rebuilds one and exchanges one with a table
 * loaded aside. None of these fires a row trigger. A statement that fails (a row without a
 * partition, a detached table whose rows no longer fit) is left for the next.
 */
final class PartitionWorkload {
  static final int REGIONS = 6;

  private PartitionWorkload() {}

  static List<String> ddl(Kind kind) {
    List<String> ddl = new ArrayList<>();
    if (kind == Kind.POSTGRESQL) {
      ddl.add(
          "CREATE TABLE events (id int NOT NULL, region int NOT NULL, v int NOT NULL,"
              + " PRIMARY KEY (id, region)) PARTITION BY LIST (region)");
      for (int r = 0; r < 4; r++) {
        ddl.add("CREATE TABLE events_r" + r + " PARTITION OF events FOR VALUES IN (" + r + ")");
      }
    } else {
      StringBuilder parts = new StringBuilder();
      for (int r = 0; r < 4; r++) {
        parts.append(r == 0 ? "" : ", ").append("PARTITION p" + r + " VALUES IN (" + r + ")");
      }
      ddl.add(
          "CREATE TABLE events (id int NOT NULL, region int NOT NULL, v int NOT NULL,"
              + " PRIMARY KEY (id, region)) PARTITION BY LIST (region) ("
              + parts
              + ")");
      ddl.add(
          "CREATE TABLE events_load (id int NOT NULL, region int NOT NULL, v int NOT NULL,"
              + " PRIMARY KEY (id, region))");
    }
    for (int i = 1; i <= 40; i++) {
      ddl.add("INSERT INTO events VALUES (" + i + ", " + (i % 4) + ", " + i + ")");
    }
    return ddl;
  }

  /** Inserts, updates and deletes rows at random until {@code stop}. */
  static void write(Pipeline p, Kind kind, Random r, AtomicBoolean stop) throws Exception {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      while (!stop.get()) {
        int id = 1 + r.nextInt(60);
        int region = r.nextInt(REGIONS);
        String t = "events";
        if (kind == Kind.POSTGRESQL && r.nextInt(4) == 0) {
          t = "events_r" + region; // by name: in the table, detached, or gone
        }
        String sql =
            switch (r.nextInt(7)) {
              case 0, 1 ->
                  String.format(
                      "INSERT INTO %s (id, region, v) VALUES (%d, %d, %d)",
                      t, id, region, r.nextInt(1000));
              case 2 -> String.format("UPDATE %s SET v = %d WHERE id = %d", t, r.nextInt(1000), id);
              case 3 ->
                  String.format(
                      "UPDATE %s SET v = v + 1 WHERE id BETWEEN %d AND %d", t, id, id + 5);
              case 4 ->
                  String.format(
                      "UPDATE %s SET region = %d WHERE id = %d",
                      t, r.nextInt(REGIONS), id); // moved to another partition
              default -> String.format("DELETE FROM %s WHERE id = %d", t, id);
            };
        try {
          s.executeUpdate(sql);
        } catch (SQLException noPartitionDuplicateKeyOrGone) {
          // the next one
        }
        Thread.sleep(r.nextInt(4)); // pacing only
      }
    }
  }

  /** Changes the partitions at random until {@code stop}. */
  static void maintain(Pipeline p, Kind kind, Random r, AtomicBoolean stop) throws Exception {
    int applied = 0;
    int n = 0;
    for (; !stop.get(); n++) {
      Thread.sleep(300 + r.nextInt(900)); // pacing between statements
      int region = r.nextInt(REGIONS);
      List<String> sql = kind == Kind.POSTGRESQL ? postgresql(p, r, region) : mysql(r, region, n);
      for (String q : sql) {
        try {
          p.sql(q);
          applied++;
        } catch (IllegalStateException refused) {
          break; // the state was not what this statement needs: the next one
        }
      }
    }
    System.out.printf(
        "partition maintenance on %s: %d statements applied in %d rounds%n", kind, applied, n);
  }

  private static List<String> postgresql(Pipeline p, Random r, int region) throws Exception {
    String part = "events_r" + region;
    boolean withDefault = exists(p, "events_def");
    if (withDefault ? r.nextInt(4) == 0 : r.nextInt(10) == 0) {
      return List.of(
          withDefault
              ? "DROP TABLE events_def"
              : "CREATE TABLE events_def PARTITION OF events DEFAULT");
    }
    String in = " FOR VALUES IN (" + region + ")";
    if (!exists(p, part) && withDefault) {
      // the region's rows split out of the default partition, as PostgreSQL's manual does it
      splitOutOfTheDefault(p, region);
      return List.of();
    }
    if (!exists(p, part)) {
      return r.nextInt(3) > 0
          ? List.of("CREATE TABLE " + part + " PARTITION OF events" + in)
          : List.of(
              "CREATE TABLE " + part + " PARTITION OF events" + in + " PARTITION BY RANGE (id)",
              "CREATE TABLE " + part + "_lo PARTITION OF " + part + " FOR VALUES FROM (0) TO (30)",
              "CREATE TABLE "
                  + part
                  + "_hi PARTITION OF "
                  + part
                  + " FOR VALUES FROM (30) TO (99)");
    }
    if (!attached(p, part)) { // detached: its rows (and writes by name since) come back, or not
      return r.nextInt(3) > 0
          ? List.of(
              "DELETE FROM " + part + " WHERE region <> " + region,
              "ALTER TABLE events ATTACH PARTITION " + part + in)
          : List.of("DROP TABLE " + part);
    }
    String detach = "ALTER TABLE events DETACH PARTITION " + part;
    return switch (r.nextInt(5)) {
      case 0 -> List.of(detach);
      case 1 -> List.of(exists(p, "events_def") ? detach : detach + " CONCURRENTLY");
      case 2 -> {
        UnderLoad.ddlQueuedBehindAReader(p, "events", detach, 1200 + r.nextInt(1500));
        yield List.of();
      }
      case 3 -> List.of("TRUNCATE " + part);
      default -> List.of("DROP TABLE " + part);
    };
  }

  /** The region's rows moved out of the default partition to one of their own. */
  private static void splitOutOfTheDefault(Pipeline p, int region) {
    try {
      p.transaction(
          "ALTER TABLE events DETACH PARTITION events_def",
          "CREATE TABLE events_r" + region + " PARTITION OF events FOR VALUES IN (" + region + ")",
          "INSERT INTO events SELECT * FROM events_def WHERE region = " + region,
          "DELETE FROM events_def WHERE region = " + region,
          "ALTER TABLE events ATTACH PARTITION events_def DEFAULT");
    } catch (IllegalStateException deadlock) {
      // with a writer: the next one
    }
  }

  private static boolean exists(Pipeline p, String table) throws SQLException {
    return query(
        p,
        "SELECT count(*) FROM pg_class WHERE relname = '%s'"
            + " AND relnamespace = current_schema()::regnamespace",
        table);
  }

  private static boolean attached(Pipeline p, String table) throws SQLException {
    return query(p, "SELECT count(*) FROM pg_inherits WHERE inhrelid = '%s'::regclass", table);
  }

  private static boolean query(Pipeline p, String sql, String table) throws SQLException {
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(String.format(sql, table))) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  private static List<String> mysql(Random r, int region, int n) {
    String part = "p" + region;
    return switch (r.nextInt(7)) {
      case 0 ->
          List.of(
              "ALTER TABLE events ADD PARTITION (PARTITION "
                  + part
                  + " VALUES IN ("
                  + region
                  + "))");
      case 1 -> List.of("ALTER TABLE events DROP PARTITION " + part);
      case 2 -> List.of("ALTER TABLE events TRUNCATE PARTITION " + part);
      case 3 ->
          List.of(
              "DELETE FROM events_load",
              String.format(
                  "INSERT INTO events_load VALUES (%d, %d, %d), (%d, %d, %d)",
                  1 + r.nextInt(60), region, n, 1 + r.nextInt(60), region, n + 1),
              "ALTER TABLE events EXCHANGE PARTITION " + part + " WITH TABLE events_load");
      case 4 -> List.of("ALTER TABLE events REBUILD PARTITION " + part);
      case 5 ->
          List.of(
              "ALTER TABLE events REORGANIZE PARTITION "
                  + part
                  + " INTO (PARTITION "
                  + part
                  + " VALUES IN ("
                  + region
                  + "))");
      default -> List.of("UPDATE events SET v = v + 1000 WHERE region = " + region);
    };
  }
}
