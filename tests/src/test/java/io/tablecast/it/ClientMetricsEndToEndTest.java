package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastClientMetrics;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client's meters against a real server and database: rows after the snapshot and after a
 * transaction, the transaction's changes and its lag from the database's capture to the mirror (a
 * plausible figure: a capture time read in the wrong time zone would be hours off), and a reconnect
 * with a re-snapshot when the server restarts.
 */
class ClientMetricsEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> ITEMS =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
          "INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c')");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void metersFollowTransactionsAndAServerRestart(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "clientmetrics", ITEMS, "items")) {
      String table = p.db.table("items");
      MeterRegistry registry = new SimpleMeterRegistry();
      TablecastClient client = p.client("metrics-it");
      new TablecastClientMetrics(client).bindTo(registry);
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "items");
      assertThat(gauge(registry, "tablecast.client.mirror.rows", table)).isEqualTo(3);
      assertThat(gauge(registry, "tablecast.client.mirror.ready", table)).isEqualTo(1);
      assertThat(registry.get("tablecast.client.connected").gauge().value()).isEqualTo(1);

      p.transaction(
          "INSERT INTO items VALUES (4, 'd')", "UPDATE items SET name = 'B' WHERE id = 2");
      Timer lag = registry.get("tablecast.client.lag").tag("table", table).timer();
      await().atMost(WAIT).until(() -> lag.count() == 1);
      assertThat(lag.max(TimeUnit.MILLISECONDS))
          .as("capture to mirror, ms")
          .isBetween(0.0, 30_000.0);
      assertThat(gauge(registry, "tablecast.client.mirror.rows", table)).isEqualTo(4);
      assertThat(
              registry
                  .get("tablecast.client.changes")
                  .tag("table", table)
                  .functionCounter()
                  .count())
          .isEqualTo(2);
      await().atMost(WAIT).until(() -> gauge(registry, "tablecast.client.mirror.lag", table) == 0);

      int port = p.server().port();
      p.stopServer();
      await()
          .atMost(WAIT)
          .until(() -> registry.get("tablecast.client.connected").gauge().value() == 0);
      p.sql("DELETE FROM items WHERE id = 1");
      TablecastServer restarted =
          TablecastServer.start(
              ServerConfig.builder()
                  .set("server_name", "it-restarted")
                  .listen("127.0.0.1", port)
                  .source(p.sourceConfig())
                  .build());
      try {
        await()
            .atMost(WAIT)
            .until(
                () ->
                    registry
                            .get("tablecast.client.resnapshots")
                            .tag("table", table)
                            .functionCounter()
                            .count()
                        == 1);
        assertThat(registry.get("tablecast.client.reconnects").functionCounter().count())
            .isEqualTo(1);
        p.awaitMirrorEqualsTable(m, "items");
        assertThat(gauge(registry, "tablecast.client.mirror.rows", table)).isEqualTo(3);
      } finally {
        restarted.close();
      }
    }
  }

  private static double gauge(MeterRegistry registry, String name, String table) {
    return registry.get(name).tag("table", table).gauge().value();
  }
}
