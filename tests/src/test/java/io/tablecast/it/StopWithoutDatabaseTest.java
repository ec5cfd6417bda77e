package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server whose database went away stops within seconds: an orchestrator's stop (a rolling
 * restart, a node drained) comes exactly when the database is being failed over or is down, and
 * gives the process a grace period (Kubernetes: 30 s) before it kills it. Before, the stop of a
 * server whose database refused connections waited for the pool to give up finding a connection for
 * its registration's removal, then for the outbox pruner's: 12.2 s on both databases, for nothing,
 * since the registration expires on its own. One whose database went silent waits for the pool's
 * check of a connection it hands out, which is half of {@code source.answer_timeout}: 0.4-0.7 s
 * with the tests' 2 s, where it took 4.4-4.7 s when the check waited HikariCP's 5 s whatever the
 * setting ({@code PoolPropertiesTest} checks the setting; this bound, a guard, holds for both).
 */
class StopWithoutDatabaseTest {
  private static final List<String> DDL = List.of("CREATE TABLE items (id int PRIMARY KEY)");

  /**
   * Below the 12.2 s of before on a quiet machine, and above what the stop's own work takes on a
   * busy one: 2.1-2.3 s quiet or beside two busy loops, 7.1 s once in a CI run (three test JVMs on
   * two cores).
   */
  private static final Duration STOPS_WITHIN = Duration.ofSeconds(10);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerWhoseDatabaseRefusesConnectionsStopsAtOnce(Kind kind) throws Exception {
    stopsAtOnce(kind, "stop_refused", true);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerWhoseDatabaseWentSilentStopsAtOnce(Kind kind) throws Exception {
    stopsAtOnce(kind, "stop_silent", false);
  }

  /** Stops the server once its database is {@code refused} (closed) or silent (stalled). */
  private static void stopsAtOnce(Kind kind, String name, boolean refused) throws Exception {
    try (Pipeline p = Pipeline.create(kind, name, DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client(name), "items");
      p.sql("INSERT INTO items VALUES (1)");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.get(1) != null);
      if (refused) {
        proxy.close(); // its connections cut, new ones refused
      } else {
        proxy.stall(); // its connections open, nothing answered
      }
      Thread.sleep(3_000); // the server finds out: reads fail, or go unanswered
      TablecastServer server = p.server();
      long began = System.nanoTime();
      server.close();
      Duration took = Duration.ofNanos(System.nanoTime() - began);
      System.out.printf(
          "StopWithoutDatabaseTest %s %s: stopped in %d ms%n",
          kind, refused ? "refused" : "silent", took.toMillis());
      assertThat(took).as("the stop of a server whose database is away").isLessThan(STOPS_WITHIN);
    }
  }
}
