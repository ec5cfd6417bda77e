package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two servers with overlapping {@code cached_tables} on one database, under writers, for {@code
 * tablecast.soak.seconds} (8 s) with the random choices of {@code tablecast.seed} (2): server A
 * caches {@code parents} and {@code kids}, server B {@code kids} and {@code pets}; both children
 * follow their parent by foreign-key actions (on MySQL/MariaDB the parents' triggers record them,
 * one for each cached child). Server B restarts every 0.5-2 s, and each start installs its capture,
 * while server A, its capture check every second and its reconciliation every two, runs throughout.
 * Then every mirror of both equals its table and neither server repaired a row: no install removed
 * what the other reads.
 */
class SeveralConfigurationsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void serversWithOverlappingTablesKeepEachOthersCaptureWhileOneRestarts(Kind kind)
      throws Exception {
    System.out.printf("SeveralConfigurationsUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p = Pipeline.create(kind, "configs_load", ddl(), "parents", "kids")) {
      p.startServer(Duration.ofSeconds(2), Duration.ofSeconds(1));
      TablecastClient clientA = p.client("reads-a");
      List<TableMirror<Map<String, Object>>> mirrorsA =
          List.of(p.readyMirror(clientA, "parents"), p.readyMirror(clientA, "kids"));
      AtomicReference<TablecastServer> serverB = new AtomicReference<>(startB(p));
      try (CuttableProxy toB = new CuttableProxy("127.0.0.1", serverB.get().port());
          TablecastClient clientB = NatsScaleOutTest.client("reads-b", toB.address())) {
        List<TableMirror<Map<String, Object>>> mirrorsB = new ArrayList<>();
        for (String table : List.of("kids", "pets")) {
          mirrorsB.add(clientB.mirror(p.db.table(table)));
          assertThat(mirrorsB.get(mirrorsB.size() - 1).awaitReady(WAIT)).isTrue();
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        AtomicLong committed = new AtomicLong();
        AtomicLong restarts = new AtomicLong();
        List<Thread> threads =
            UnderLoad.writers(
                p,
                SEED,
                2,
                false,
                stop,
                committed,
                errors,
                SeveralConfigurationsUnderLoadTest::statement);
        Random pace = new Random(SEED + 7);
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  while (!stop.get()) {
                    Thread.sleep(500 + pace.nextInt(1500)); // pacing between restarts
                    stopB(serverB.get());
                    serverB.set(startB(p)); // its install runs beside server A
                    toB.retarget("127.0.0.1", serverB.get().port());
                    restarts.incrementAndGet();
                  }
                }));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "SeveralConfigurationsUnderLoadTest %s: %d transactions committed, server B started"
                + " %d times more%n",
            kind, committed.get(), restarts.get());
        clientB.sync(WAIT);
        p.awaitMirrorEqualsTable(mirrorsA.get(0), "parents");
        p.awaitMirrorEqualsTable(mirrorsA.get(1), "kids");
        p.awaitMirrorEqualsTable(mirrorsB.get(0), "kids");
        p.awaitMirrorEqualsTable(mirrorsB.get(1), "pets");
      } finally {
        stopB(serverB.get());
      }
    } // closing the pipeline fails when server A repaired a row
  }

  /** Server B: {@code kids} and {@code pets}, installing its capture. */
  private static TablecastServer startB(Pipeline p) throws InterruptedException {
    SourceConfig kidsAndPets =
        new SourceConfig(
            p.db.jdbcUrl(),
            null,
            null,
            List.of(p.db.table("kids"), p.db.table("pets")),
            true,
            null,
            null,
            Duration.ofSeconds(2),
            Duration.ofSeconds(1));
    return TablecastServer.start(
        p.serverConfig().toBuilder().set("server_name", "server-b").source(kidsAndPets).build());
  }

  private static void stopB(TablecastServer b) {
    double repairs = b.metrics().reconcileRepairs();
    b.close();
    assertThat(repairs).as("rows server B repaired (seed %d)", SEED).isZero();
  }

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE parents (id INT PRIMARY KEY, name VARCHAR(20))");
    for (String child : List.of("kids", "pets")) {
      ddl.add(
          "CREATE TABLE "
              + child
              + " (id INT PRIMARY KEY, parent_id INT NOT NULL, note VARCHAR(20), CONSTRAINT fk_"
              + child
              + " FOREIGN KEY (parent_id) REFERENCES parents (id) ON DELETE CASCADE ON UPDATE"
              + " CASCADE)");
    }
    StringBuilder parents = new StringBuilder("INSERT INTO parents VALUES ");
    for (int id = 1; id <= 30; id++) {
      parents.append(id > 1 ? "," : "").append("(").append(id).append(", 'p')");
    }
    ddl.add(parents.toString());
    for (String child : List.of("kids", "pets")) {
      StringBuilder rows = new StringBuilder("INSERT INTO " + child + " VALUES ");
      for (int id = 1; id <= 90; id++) {
        rows.append(id > 1 ? "," : "").append("(").append(id).append(", ");
        rows.append(1 + id % 30).append(", 'n')");
      }
      ddl.add(rows.toString());
    }
    return ddl;
  }

  private static String statement(Random r) {
    int parent = 1 + r.nextInt(35) + (r.nextInt(3) == 0 ? 100 : 0); // re-keyed ones by 100
    String child = r.nextBoolean() ? "kids" : "pets";
    int id = 1 + r.nextInt(100);
    return switch (r.nextInt(8)) {
      case 0 -> "INSERT INTO parents VALUES (" + parent + ", 'p')";
      case 1 -> "DELETE FROM parents WHERE id = " + parent;
      case 2 -> // re-keyed back and forth: its children follow
          parent > 100
              ? "UPDATE parents SET id = id - 100 WHERE id = " + parent
              : "UPDATE parents SET id = id + 100 WHERE id = " + parent;
      case 3 -> "UPDATE parents SET name = 'n" + r.nextInt(99) + "' WHERE id = " + parent;
      case 4, 5 -> "INSERT INTO " + child + " VALUES (" + id + ", " + parent + ", 'n')";
      case 6 -> "UPDATE " + child + " SET parent_id = " + parent + " WHERE id = " + id;
      default -> "DELETE FROM " + child + " WHERE id = " + id;
    };
  }
}
