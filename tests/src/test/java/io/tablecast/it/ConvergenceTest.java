package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Randomized soak: concurrent writers (single statements, multi-row and rolled-back transactions,
 * one long open transaction) while clients stay, have their connection cut (and resume), churn
 * (close and re-snapshot) and join late. Every update raises the row's {@code ver} and every insert
 * starts it at the current time in microseconds (above any version of an earlier row of that key,
 * which was deleted before), so a mirror that applied a change twice or out of order shows a
 * version going back, even when a batch holds a row's delete and re-insert as one update. Once
 * writes stop, every live mirror equals the table and reconciliation repaired nothing ({@link
 * Pipeline#stopServer}). Seed: {@code -Dtablecast.seed}, length: {@code -Dtablecast.soak.seconds}.
 */
class ConvergenceTest {

  private static final long SEED = Long.getLong("tablecast.seed", 20240611L);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 12L);
  private static final int WRITERS = 3;
  private static final int MAX_ID = 300;

  private static List<String> ddl() {
    List<String> ddl =
        new ArrayList<>(
            List.of(
                "CREATE TABLE items (id int PRIMARY KEY, grp int NOT NULL, "
                    + "qty int NOT NULL, note varchar(40), ver bigint NOT NULL)"));
    for (int id = 1; id <= 50; id++) {
      ddl.add(
          "INSERT INTO items VALUES ("
              + id
              + ", "
              + id % 5
              + ", "
              + id
              + ", 'seed-"
              + id
              + "', 0)");
    }
    return ddl;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void randomizedWorkloadConvergesOnEveryMirror(Kind kind) throws Exception {
    System.out.printf(
        "ConvergenceTest %s: -Dtablecast.seed=%d -Dtablecast.soak.seconds=%d%n",
        kind, SEED, SECONDS);
    try (Pipeline p = Pipeline.start(kind, "converge", ddl(), "items")) {
      TableMirror<Map<String, Object>> always = p.readyMirror(p.client("always"), "items");
      Set<String> present = ConcurrentHashMap.newKeySet();
      always.rows().forEach(r -> present.add(String.valueOf(r.get("id"))));
      List<String> backwards = new CopyOnWriteArrayList<>();
      AtomicLong events = new AtomicLong();
      always.addListener(
          e -> {
            events.incrementAndGet();
            checkTransition(e, present, backwards);
          });
      CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port());
      TablecastClient resuming =
          TablecastClient.builder()
              .servers(proxy.address())
              .clientName("resuming")
              .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
              .build();
      TableMirror<Map<String, Object>> resumingMirror = p.readyMirror(resuming, "items");
      Set<String> resumingPresent = ConcurrentHashMap.newKeySet();
      resumingMirror.rows().forEach(r -> resumingPresent.add(String.valueOf(r.get("id"))));
      resumingMirror.addListener(e -> checkTransition(e, resumingPresent, backwards));

      long durationMs = SECONDS * 1000;
      long end = System.currentTimeMillis() + durationMs;
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      AtomicLong committed = new AtomicLong();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Random rnd = new Random(SEED * 31 + w);
        threads.add(
            thread(
                "writer-" + w,
                errors,
                () -> {
                  try (Connection c = p.db.connect();
                      Statement s = c.createStatement()) {
                    while (System.currentTimeMillis() < end) {
                      int choice = rnd.nextInt(10);
                      boolean rollback = choice == 9;
                      List<String> stmts = new ArrayList<>();
                      for (int i = choice >= 7 ? 2 + rnd.nextInt(4) : 1; i > 0; i--) {
                        stmts.add(randomStatement(rnd));
                      }
                      if (runTransaction(c, s, stmts, rollback)) {
                        committed.incrementAndGet();
                      }
                      Thread.sleep(rnd.nextInt(5)); // pacing only
                    }
                  }
                }));
      }
      threads.add(
          thread(
              "long-txn",
              errors,
              () -> {
                Thread.sleep(durationMs / 3); // pacing: start mid-run
                try (Connection c = p.db.connect();
                    Statement s = c.createStatement()) {
                  c.setAutoCommit(false);
                  for (int i = 0; i < 5; i++) {
                    s.execute(
                        "INSERT INTO items VALUES ("
                            + (1000 + i)
                            + ", 9, "
                            + i
                            + ", 'long', "
                            + nowMicros()
                            + ")");
                  }
                  s.execute(
                      "UPDATE items SET note = 'long-upd', ver = ver + 1 WHERE id BETWEEN 1 AND 3");
                  Thread.sleep(3000); // hold the transaction open
                  c.commit();
                }
              }));
      threads.forEach(Thread::start);

      // Client churn and late join run on this thread (Pipeline's client list is not thread-safe).
      Random rnd = new Random(SEED);
      TablecastClient churn = p.client("churn-0");
      TableMirror<Map<String, Object>> churnMirror = p.readyMirror(churn, "items");
      TableMirror<Map<String, Object>> late = null;
      for (int round = 1; System.currentTimeMillis() < end; round++) {
        Thread.sleep(750 + rnd.nextInt(750)); // pacing between connection cuts
        proxy.cut(); // the resuming client reconnects and resumes from its position
        Thread.sleep(750 + rnd.nextInt(750)); // pacing between reconnects
        churn.close();
        churn = p.client("churn-" + round);
        churnMirror = p.readyMirror(churn, "items");
        if (late == null && System.currentTimeMillis() > end - durationMs / 2) {
          late = p.readyMirror(p.client("late"), "items");
        }
      }
      for (Thread t : threads) {
        t.join();
      }
      assertThat(errors).as("writer errors").isEmpty();
      System.out.printf("ConvergenceTest %s: %d committed transactions%n", kind, committed.get());
      if (late == null) {
        late = p.readyMirror(p.client("late"), "items");
      }
      p.awaitMirrorEqualsTable(always, "items");
      p.awaitMirrorEqualsTable(churnMirror, "items");
      p.awaitMirrorEqualsTable(late, "items");
      p.awaitMirrorEqualsTable(resumingMirror, "items");
      System.out.printf(
          "ConvergenceTest %s: the cut client connected %d times, resumed %d times%n",
          kind, proxy.connections(), proxy.frames(io.tablecast.protocol.MessageType.RESUMED));
      assertThat(proxy.frames(io.tablecast.protocol.MessageType.RESUMED))
          .as("resumes after cuts")
          .isPositive();
      resuming.close();
      proxy.close();
      System.out.printf(
          "ConvergenceTest %s: %d events on the always-connected mirror%n", kind, events.get());
      assertThat(events.get()).as("events seen by the always-connected mirror").isPositive();
      assertThat(backwards).as("out-of-order events on the always-connected mirror").isEmpty();
    }
  }

  private static long nowMicros() {
    java.time.Instant now = java.time.Instant.now();
    return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
  }

  private static String randomStatement(Random rnd) {
    int id = 1 + rnd.nextInt(MAX_ID);
    switch (rnd.nextInt(4)) {
      case 0:
        return "INSERT INTO items VALUES ("
            + id
            + ", "
            + rnd.nextInt(5)
            + ", "
            + rnd.nextInt(1000)
            + ", "
            + (rnd.nextBoolean() ? "NULL" : "'n" + rnd.nextInt(1_000_000) + "'")
            + ", "
            + nowMicros()
            + ")";
      case 1:
        return "UPDATE items SET qty = qty + 1, note = 'u"
            + rnd.nextInt(1_000_000)
            + "', ver = ver + 1 WHERE id = "
            + id;
      case 2:
        return "UPDATE items SET grp = "
            + rnd.nextInt(5)
            + ", ver = ver + 1 WHERE id BETWEEN "
            + id
            + " AND "
            + (id + 3);
      default:
        return "DELETE FROM items WHERE id = " + id;
    }
  }

  /**
   * Runs the statements; duplicate keys and deadlocks abandon the transaction. True if committed.
   */
  private static boolean runTransaction(
      Connection c, Statement s, List<String> stmts, boolean rollback) throws SQLException {
    c.setAutoCommit(false);
    try {
      for (String q : stmts) {
        s.execute(q);
      }
      if (rollback) {
        c.rollback();
        return false;
      }
      c.commit();
      return true;
    } catch (SQLException e) {
      c.rollback();
      String state = String.valueOf(e.getSQLState());
      if (state.startsWith("23") || state.startsWith("40")) {
        return false; // duplicate key, deadlock or serialization failure: expected under contention
      }
      throw e;
    }
  }

  /**
   * Per key, an INSERT needs an absent row, UPDATE and DELETE a present one, and an UPDATE raises
   * the version (a change applied twice or out of order would not).
   */
  private static void checkTransition(
      ChangeEvent<Map<String, Object>> e, Set<String> present, List<String> bad) {
    String key = String.valueOf(e.key());
    boolean was =
        e.op() == ChangeType.INSERT
            ? !present.add(key)
            : e.op() == ChangeType.DELETE ? present.remove(key) : present.contains(key);
    if (e.op() == ChangeType.INSERT ? was : !was) {
      bad.add(e.op() + " " + key + " " + e.newRow());
    }
    if (e.op() == ChangeType.UPDATE
        && ((Number) e.newRow().get("ver")).longValue()
            <= ((Number) e.oldRow().get("ver")).longValue()) {
      bad.add("UPDATE " + key + " went back from " + e.oldRow() + " to " + e.newRow());
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread thread(String name, List<Throwable> errors, Body body) {
    return new Thread(
        () -> {
          try {
            body.run();
          } catch (Throwable t) {
            errors.add(t);
          }
        },
        name);
  }
}
