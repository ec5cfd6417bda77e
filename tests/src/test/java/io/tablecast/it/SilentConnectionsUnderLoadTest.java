package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The server's connections to the database go silent again and again while writers insert, update
 * and delete (single statements and transactions, a quarter rolled back): each time the tail's read
 * waits on a connection that will never answer, the server gives it up on the database's word and
 * reads again on a new connection ({@code LostAnswers}), whatever statement of its read the silence
 * fell on. Every mirror must end equal to its table, having said it was stale while it could not
 * follow, with the random choices of {@code tablecast.seed} (3), {@code tablecast.silences}
 * silences (3) apart by 1 to 3 s after each recovery. Reconciliation is off: only the tail brings
 * the mirror there.
 */
class SilentConnectionsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 3);
  private static final int SILENCES = Integer.getInteger("tablecast.silences", 2);
  private static final List<String> DDL =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL)",
          "CREATE TABLE others (id int PRIMARY KEY, v int NOT NULL)");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsEndEqualToTheirTablesAfterTheServersConnectionsWentSilentAgainAndAgain(Kind kind)
      throws Exception {
    System.out.printf(
        "SilentConnectionsUnderLoadTest %s: -Dtablecast.seed=%d -Dtablecast.silences=%d%n",
        kind, SEED, SILENCES);
    try (Pipeline p = Pipeline.create(kind, "silent_load", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TablecastClient client = p.client("silent_load");
      TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
      TableMirror<Map<String, Object>> others = p.readyMirror(client, "others");
      AtomicBoolean stop = new AtomicBoolean();
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      List<Thread> threads =
          UnderLoad.writers(
              p,
              SEED,
              2,
              true,
              stop,
              new AtomicLong(),
              errors,
              SilentConnectionsUnderLoadTest::write);
      AtomicInteger recovered = new AtomicInteger();
      threads.add(
          UnderLoad.thread(
              errors,
              () -> {
                try {
                  silences(proxy, items, kind, recovered);
                } finally {
                  stop.set(true); // the writers too, also when a silence did not end
                }
              }));
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(errors).as("what the threads threw").isEmpty();
      assertThat(recovered).hasValue(SILENCES);
      p.awaitMirrorEqualsTable(items, "items");
      p.awaitMirrorEqualsTable(others, "others");
      assertThat(items.staleReason()).isNull();
      assertThat(others.staleReason()).isNull();
    }
  }

  /**
   * Makes the proxied connections silent {@link #SILENCES} times, each until the mirror follows.
   */
  private static void silences(
      CuttableProxy proxy,
      TableMirror<Map<String, Object>> items,
      Kind kind,
      AtomicInteger recovered)
      throws InterruptedException {
    Random r = new Random(SEED);
    for (int i = 0; i < SILENCES; i++) {
      Thread.sleep(1_000 + r.nextInt(2_000));
      proxy.stall();
      long silent = System.currentTimeMillis();
      awaitState(items, true, Duration.ofSeconds(30), "stale after silence " + i);
      awaitState(items, false, Duration.ofSeconds(30), "following after silence " + i);
      System.out.printf(
          "SilentConnectionsUnderLoadTest %s: silence %d, following again after %d ms%n",
          kind, i, System.currentTimeMillis() - silent);
      recovered.incrementAndGet();
    }
  }

  /** A write to one of the two tables, keys 1 to 200. */
  private static String write(Random r) {
    String table = r.nextBoolean() ? "items" : "others";
    int id = 1 + r.nextInt(200);
    return switch (r.nextInt(4)) {
      case 0 -> "DELETE FROM " + table + " WHERE id = " + id;
      case 1 -> "UPDATE " + table + " SET v = v + 1 WHERE id = " + id;
      default -> "INSERT INTO " + table + " VALUES (" + id + ", " + r.nextInt(1000) + ")";
    };
  }

  /** Waits until {@code mirror} is stale ({@code stale}) or follows its table, or fails. */
  private static void awaitState(
      TableMirror<Map<String, Object>> mirror, boolean stale, Duration within, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while ((mirror.staleReason() != null) != stale) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not " + what + " within " + within);
      }
      Thread.sleep(20);
    }
  }
}
