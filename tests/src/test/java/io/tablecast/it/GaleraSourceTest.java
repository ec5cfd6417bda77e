package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A node of a MariaDB Galera Cluster as the source ({@link LocalGalera}: two nodes this test
 * starts). A transaction open on the other node is invisible to this one, also to {@code
 * innodb_trx}, so the tail drops its outbox id as rolled back once later ids committed here, and
 * its row never reached the mirror (the old code: {@code expected {1, 2, 3, 4, 5} but was {1, 3, 4,
 * 5}}, reconciliation off). The server now warns at start, tells rows written through the other
 * node by their outbox ids, says so, and re-reads the tables: the mirror ends equal to the table.
 */
class GaleraSourceTest {

  @Test
  void writesThroughAnotherNodeAreSaidAtStartAndWhenSeenAndTheTableReRead() throws Exception {
    try (LocalGalera cluster = LocalGalera.start("galera")) {
      String node1 = cluster.first.jdbcUrl("app");
      String node2 = cluster.second.jdbcUrl("app");
      cluster.first.execute(
          "CREATE DATABASE app", "CREATE TABLE app.rates (id int PRIMARY KEY, name varchar(40))");
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() -> LocalDatabases.rows(node2, "app.rates").isEmpty());
      try (TablecastServer server = LocalDatabases.serve(node1, "app.rates");
          TablecastClient client = LocalDatabases.client(server)) {
        TableMirror<Map<String, Object>> m = client.mirror("app.rates");
        assertThat(m.awaitReady(Duration.ofSeconds(20))).isTrue();
        try (Connection c2 = DriverManager.getConnection(node2);
            Statement s2 = c2.createStatement()) {
          c2.setAutoCommit(false);
          s2.execute("INSERT INTO rates VALUES (2, 'through node 2, committed late')");
          LocalDatabases.execute(
              node1,
              "INSERT INTO rates VALUES (1, 'through node 1')",
              "INSERT INTO rates VALUES (4, 'through node 1')",
              "INSERT INTO rates VALUES (5, 'through node 1')");
          await().atMost(Duration.ofSeconds(10)).until(() -> m.size() == 3);
          Thread.sleep(1500); // the tail looks at innodb_trx and drops node 2's open id
          c2.commit();
        }
        LocalDatabases.execute(node2, "INSERT INTO rates VALUES (3, 'through node 2')");
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(mirror(m)).isEqualTo(LocalDatabases.rows(node1, "app.rates")));
        assertThat(m.size()).isEqualTo(5);
        assertThat(logged("Galera cluster of 2 nodes")).as("the warning at start").isTrue();
        assertThat(logged("written through another node of the Galera cluster")).isTrue();
        assertThat(server.metrics().captureProblems()).isPositive();
      }
    }
  }

  private static Map<Object, Object> mirror(TableMirror<Map<String, Object>> m) {
    Map<Object, Object> rows = new TreeMap<>();
    m.rows().forEach(r -> rows.put(((Number) r.get("id")).intValue(), r.get("name")));
    return rows;
  }

  private static boolean logged(String text) {
    List<RecentEvents.Event> events = RecentEvents.global().newestFirst();
    return events.stream().anyMatch(e -> e.message().contains(text));
  }
}
