package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The secondary-index example of docs/CLIENT.md, compiled and run against the fake server, and
 * checked to be the one the document shows.
 */
class IndexExampleTest {

  // --- index example start (docs/CLIENT.md, "Secondary indexes")
  record Account(long id, String email, String region, BigDecimal balance) {}

  static List<Object> indexExample(TablecastClient client) throws InterruptedException {
    TableMirror<Account> accounts =
        client.mirror(
            "shop.accounts",
            Account.class,
            List.of(
                IndexDefinition.hash("by_email", Account::email).unique().columns("email"),
                IndexDefinition.hash("by_region", Account::region).columns("region"),
                IndexDefinition.sorted("by_balance", Account::balance).columns("balance")));
    accounts.awaitReady(Duration.ofSeconds(10));
    Account ann = accounts.index("by_email").getOne("ann@example.com"); // null when none
    List<Account> rich = // key order; null bound = no bound
        accounts.index("by_balance").range(new BigDecimal("1000"), true, null, true);
    List<Account> richInEurope = // one consistent read of both indexes, then the filter
        accounts
            .query()
            .where("by_region", "EU")
            .whereRange("by_balance", new BigDecimal("1000"), true, null, true)
            .filter(a -> !a.email().endsWith("@example.org"))
            .list();

    TableMirror<Map<String, Object>> orders = // generic rows: index by column names
        client.mirror("shop.orders", List.of(IndexDefinition.hash("by_customer", "customer_id")));
    orders.awaitReady(Duration.ofSeconds(10));
    List<Map<String, Object>> annsOrders = orders.index("by_customer").get(ann.id());
    return List.of(ann, rich, richInEurope, annsOrders);
  }

  // --- index example end

  @Test
  void indexExampleFromTheDocsRuns() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      FakeServer.Conn conn = server.handshake(1);
      CompletableFuture<List<Object>> result =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return indexExample(client);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          "shop.accounts",
          List.of("id"),
          1,
          row("id", 1, "email", "ann@example.com", "region", "EU", "balance", "2500.00"),
          row("id", 2, "email", "bob@example.org", "region", "EU", "balance", "1500.00"),
          row("id", 3, "email", "cy@example.com", "region", "US", "balance", "3000.00"),
          row("id", 4, "email", "di@example.com", "region", "EU", "balance", "10.00"));
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          "shop.orders",
          List.of("id"),
          1,
          row("id", 10, "customer_id", 1),
          row("id", 11, "customer_id", 3),
          row("id", 12, "customer_id", 1));
      List<Object> out = result.get(10, TimeUnit.SECONDS);
      assertThat(((Account) out.get(0)).id()).isEqualTo(1L);
      assertThat(ids(out.get(1))).containsExactly(2L, 1L, 3L);
      assertThat(ids(out.get(2))).containsExactly(1L);
      assertThat(ids(out.get(3))).containsExactlyInAnyOrder(10L, 12L);
    }
  }

  @Test
  void theDocumentShowsThisExample() throws IOException {
    DocExamples.assertDocumentShows("\n## Secondary indexes\n", IndexExampleTest.class, "index");
  }

  private static List<Long> ids(Object rows) {
    List<Long> out = new ArrayList<>();
    for (Object r : (List<?>) rows) {
      out.add(r instanceof Account a ? a.id() : ((Number) ((Map<?, ?>) r).get("id")).longValue());
    }
    return out;
  }
}
