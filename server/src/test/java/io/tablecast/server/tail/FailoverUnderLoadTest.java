package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failovers (met by {@link PolledSource#meetAnotherInstance}), {@code ALTER TABLE}s (some queued
 * behind an open transaction for longer than the tail waits for a lock, a failover sometimes met
 * meanwhile) and two writers, together on three tables, for {@code tablecast.failover.seconds} (15
 * s) with the random choices of {@code tablecast.seed} (1). Then the image the batches build must
 * equal the tables, none of them stale. The first run of it found a MySQL/MariaDB read that met
 * another instance inside its snapshot give its connection back with the snapshot open, after which
 * every whole read failed and no change reached the clients again.
 */
class FailoverUnderLoadTest {
  private static final List<String> TABLES = List.of("a", "b", "c");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theImageEqualsTheTablesAfterFailoversAndDdlUnderLoad(Kind kind) throws Exception {
    long seed = Long.getLong("tablecast.seed", 1);
    TestDatabases.Isolated db = kind.isolated("failover_load");
    for (String t : TABLES) {
      db.execute("CREATE TABLE " + db.table(t) + " (id int PRIMARY KEY, v int, s varchar(20))");
    }
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    try (PolledSource tail =
        PolledSource.open(
            PolledSource.config(db, TABLES, Duration.ofHours(1), Duration.ofSeconds(1)),
            MicrometerServerMetrics.inMemory())) {
      tail.poll();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        Random r = new Random(seed * 31 + w);
        threads.add(running(errors, () -> write(db, r, stop)));
      }
      Random faults = new Random(seed);
      threads.add(running(errors, () -> fail(db, tail, faults, stop)));
      threads.forEach(Thread::start);
      Thread.sleep(Integer.getInteger("tablecast.failover.seconds", 15) * 1000L);
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(errors).isEmpty();
      await("the image equals the tables, none stale (seed " + seed + ")")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(() -> assertThat(differences(db, tail)).isEmpty());
    }
  }

  private interface Work {
    void run() throws Exception;
  }

  private static Thread running(List<Throwable> errors, Work work) {
    return new Thread(
        () -> {
          try {
            work.run();
          } catch (Exception | Error e) {
            errors.add(e);
          }
        });
  }

  /** Inserts, updates and deletes rows of the tables at random until {@code stop}. */
  private static void write(TestDatabases.Isolated db, Random r, AtomicBoolean stop)
      throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      while (!stop.get()) {
        String t = db.table(TABLES.get(r.nextInt(TABLES.size())));
        int id = 1 + r.nextInt(60);
        String sql =
            switch (r.nextInt(4)) {
              case 0, 1 ->
                  String.format(
                      "INSERT INTO %s (id, v, s) VALUES (%d, %d, 'x%d')",
                      t, id, r.nextInt(1000), r.nextInt(100));
              case 2 -> String.format("UPDATE %s SET v = %d WHERE id = %d", t, r.nextInt(1000), id);
              default -> String.format("DELETE FROM %s WHERE id = %d", t, id);
            };
        try {
          s.executeUpdate(sql);
        } catch (SQLException duplicateKeyOrLockWait) {
          // the next one
        }
        Thread.sleep(r.nextInt(5));
      }
    }
  }

  /**
   * Every 0.7-1.5 s until {@code stop}: another instance met, or a column added to a table, half of
   * them queued behind an open transaction for 1.5-3 s (sometimes with another instance met
   * meanwhile).
   */
  private static void fail(
      TestDatabases.Isolated db, PolledSource tail, Random r, AtomicBoolean stop) throws Exception {
    for (int column = 0; !stop.get(); column++) {
      Thread.sleep(700 + r.nextInt(800));
      String table = db.table(TABLES.get(r.nextInt(TABLES.size())));
      int what = r.nextInt(3);
      String alter =
          "ALTER TABLE "
              + table
              + (r.nextBoolean()
                  ? " ADD COLUMN x" + column + " int DEFAULT " + column
                  : " ADD COLUMN y" + column + " varchar(5)");
      if (what == 0) {
        tail.meetAnotherInstance();
      } else if (what == 1) {
        db.execute(alter);
      } else {
        try (Connection reader = db.connect()) {
          reader.setAutoCommit(false);
          try (Statement s = reader.createStatement()) {
            s.executeQuery("SELECT * FROM " + table).close(); // the ALTER waits for it
          }
          Thread queued = new Thread(() -> db.execute(alter));
          queued.start();
          Thread.sleep(1500 + r.nextInt(1500));
          if (r.nextBoolean()) {
            tail.meetAnotherInstance();
            Thread.sleep(500 + r.nextInt(1000));
          }
          reader.commit();
          queued.join();
        }
      }
    }
  }

  /** The image the batches build, per table (qualified): id to row. */
  private static Map<String, TreeMap<Integer, ObjectNode>> image(PolledSource tail) {
    Map<String, TreeMap<Integer, ObjectNode>> out = new HashMap<>();
    for (CommittedBatch b : tail.batches) {
      for (RowEvent e : b.events()) { // then the tables read in the batch's snapshot
        TreeMap<Integer, ObjectNode> t = out.computeIfAbsent(e.table(), k -> new TreeMap<>());
        if (e instanceof RowEvent.Upsert u) {
          ObjectNode row = Rows.after(u);
          t.put(row.get("id").asInt(), row);
        } else if (e instanceof RowEvent.Delete) {
          t.remove(Rows.before(e).get("id").asInt());
        } else {
          t.clear();
        }
      }
      for (CommittedBatch.TableRead r : b.tableReads()) {
        TreeMap<Integer, ObjectNode> t = new TreeMap<>();
        for (ObjectNode row : Rows.json(r.schema(), r.rows())) {
          t.put(row.get("id").asInt(), row);
        }
        out.put(r.schema().id().qualified(), t);
      }
    }
    return out;
  }

  /** How the image differs from the tables (rows as text, column by column), and stale tables. */
  private static List<String> differences(TestDatabases.Isolated db, PolledSource tail)
      throws Exception {
    Map<String, TreeMap<Integer, ObjectNode>> image = image(tail);
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      for (String name : TABLES) {
        Map<Integer, Map<String, String>> rows = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + db.table(name))) {
          ResultSetMetaData md = rs.getMetaData();
          while (rs.next()) {
            Map<String, String> row = new TreeMap<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
              row.put(md.getColumnName(i), rs.getString(i));
            }
            rows.put(rs.getInt("id"), row);
          }
        }
        Map<Integer, Map<String, String>> mirrored = new TreeMap<>();
        image.entrySet().stream()
            .filter(e -> e.getKey().endsWith("." + name))
            .flatMap(e -> e.getValue().entrySet().stream())
            .forEach(e -> mirrored.put(e.getKey(), text(e.getValue())));
        if (!mirrored.equals(rows)) {
          out.add(name + ": image " + mirrored + ", table " + rows);
        }
        if (tail.staleNow(name)) {
          out.add(name + " stale");
        }
      }
    }
    return out;
  }

  private static Map<String, String> text(ObjectNode row) {
    Map<String, String> out = new TreeMap<>();
    row.fields()
        .forEachRemaining(
            f -> out.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText()));
    return out;
  }
}
