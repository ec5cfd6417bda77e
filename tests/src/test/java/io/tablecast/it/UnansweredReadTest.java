package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A database that stops answering the server without closing its connections (a host powered off, a
 * firewall or NAT that drops the connection's packets, an address moved by a failover): the server
 * reaches it through a proxy that stops passing the database's answers on while the connections
 * stay open, so the tail's read waits, as it would for the operating system to give the connection
 * up (a quarter of an hour by Linux's defaults). Within about ten seconds every mirror says it is
 * stale, naming the read that has not returned, and keeps its rows; once the answers flow again the
 * mirror gets what was committed meanwhile and follows its table again. Before, no poll failed, so
 * the mirrors looked current throughout (40 s without a word, watched).
 */
class UnansweredReadTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aDatabaseThatStopsAnsweringMakesEveryMirrorStaleUntilItsReadReturns(Kind kind)
      throws Exception {
    try (Pipeline p =
        Pipeline.create(
            kind,
            "unanswered",
            List.of(
                "CREATE TABLE items (id int PRIMARY KEY, v varchar(10))",
                "CREATE TABLE others (id int PRIMARY KEY)"),
            "items",
            "others")) {
      URI db = URI.create(p.db.jdbcUrl().substring("jdbc:".length()));
      try (CuttableProxy proxy = CuttableProxy.raw(db.getHost(), db.getPort())) {
        String url = p.db.jdbcUrl().replace(db.getHost() + ":" + db.getPort(), proxy.address());
        ServerSetups.atUrl(p, url, Duration.ZERO); // no reconciliation: only the tail
        var client = p.client("unanswered");
        TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
        TableMirror<Map<String, Object>> others = p.readyMirror(client, "others");
        p.sql("INSERT INTO items VALUES (1, 'a')");
        await().atMost(WAIT).until(() -> items.get(1) != null);

        proxy.pause(true); // the database's answers stop reaching the server
        long paused = System.currentTimeMillis();
        p.sql("INSERT INTO items VALUES (2, 'b')"); // the writers reach it directly
        await().atMost(WAIT).until(() -> items.staleReason() != null);
        System.out.printf(
            "UnansweredReadTest %s: stale after %d ms%n",
            kind, System.currentTimeMillis() - paused);
        assertThat(items.staleReason())
            .contains("the server's read of changes from the database has not returned since")
            .contains("keeps the rows it has");
        assertThat(others.staleReason()).as("every table").isNotNull();
        assertThat(items.get(1)).containsEntry("v", "a");
        assertThat(items.get(2)).isNull();

        proxy.pause(false);
        await().atMost(WAIT).until(() -> items.get(2) != null);
        await().atMost(WAIT).until(() -> items.staleReason() == null);
        assertThat(others.staleReason()).isNull();
      }
    }
  }
}
