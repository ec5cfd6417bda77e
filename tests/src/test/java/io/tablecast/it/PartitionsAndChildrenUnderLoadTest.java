package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partitioned table under rows and partition maintenance written at random ({@link
 * PartitionWorkload}), and a PostgreSQL inheritance tree under rows and children that come and go
 * ({@link InheritanceWorkload}), each for {@code tablecast.soak.seconds} (8 s) with the random
 * choices of {@code tablecast.seed} (2), while clients join. No reconciliation runs: what no
 * trigger fires for must be found by the capture (its check every second). Then every mirror equals
 * the table and none is stale.
 */
class PartitionsAndChildrenUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final Duration READY = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsEqualAPartitionedTableAfterItsPartitionsChangeUnderWrites(Kind kind)
      throws Exception {
    System.out.printf("PartitionsAndChildrenUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p = Pipeline.create(kind, "part_churn", PartitionWorkload.ddl(kind), "events")) {
      soak(
          p,
          "events",
          (r, stop) -> PartitionWorkload.write(p, kind, r, stop),
          (r, stop) -> PartitionWorkload.maintain(p, kind, r, stop));
    }
  }

  @Test
  void mirrorsEqualAnInheritanceTreeAfterItsChildrenChangeUnderWrites() throws Exception {
    System.out.printf(
        "PartitionsAndChildrenUnderLoadTest inheritance: -Dtablecast.seed=%d%n", SEED);
    try (Pipeline p =
        Pipeline.create(Kind.POSTGRESQL, "inh_churn", InheritanceWorkload.ddl(), "things")) {
      soak(
          p,
          "things",
          (r, stop) -> InheritanceWorkload.write(p, r, stop),
          (r, stop) -> InheritanceWorkload.maintain(p, r, stop));
    }
  }

  /**
   * Two writers and one thread of DDL for {@link #SECONDS}, a client joining every 1-4 s; then the
   * mirrors equal the table and none is stale.
   */
  private static void soak(Pipeline p, String table, Workload writes, Workload ddl)
      throws Exception {
    p.startServer(Duration.ZERO, Pipeline.CAPTURE_CHECK_EVERY);
    List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
    mirrors.add(p.readyMirror(p.client("steady"), table));
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      Random r = new Random(SEED * 31 + w);
      threads.add(UnderLoad.thread(errors, () -> writes.run(r, stop)));
    }
    Random maintenance = new Random(SEED);
    threads.add(UnderLoad.thread(errors, () -> ddl.run(maintenance, stop)));
    threads.forEach(Thread::start);
    long end = System.currentTimeMillis() + SECONDS * 1000;
    Random r = new Random(SEED + 3);
    for (int round = 0; System.currentTimeMillis() < end; round++) {
      Thread.sleep(1000 + r.nextInt(3000)); // pacing between joins
      try (TablecastClient joining = NatsScaleOutTest.client("joining-" + round, p.address())) {
        p.readyMirror(joining, table);
      }
    }
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).isEmpty();
    mirrors.add(p.readyMirror(p.client("last"), table));
    for (TableMirror<Map<String, Object>> m : mirrors) {
      p.awaitMirrorEqualsTable(m, table);
      assertThat(m.staleReason()).as("stale (seed " + SEED + ")").isNull();
    }
  }

  private interface Workload {
    void run(Random r, AtomicBoolean stop) throws Exception;
  }
}
