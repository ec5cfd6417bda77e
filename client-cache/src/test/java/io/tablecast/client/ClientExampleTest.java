package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.Message;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The examples of docs/CLIENT.md, compiled and run against the fake server. */
class ClientExampleTest {
  private static final Logger log = LoggerFactory.getLogger(ClientExampleTest.class);

  // --- example start (docs/CLIENT.md)
  record Account(long id, String owner, BigDecimal balance) {}

  static BigDecimal example(String server, CountDownLatch listening, CountDownLatch changed)
      throws InterruptedException {
    try (TablecastClient client =
        TablecastClient.builder()
            .servers(server) // "host:port", one or more
            .clientName("billing")
            .credentials("app", "secret")
            .build()) { // returns at once, connects in the background
      TableMirror<Account> accounts = client.mirror("shop.accounts", Account.class);
      accounts.addListener(
          e -> { // runs on the client's listener thread
            System.out.println(e.op() + " " + e.key() + ": " + e.oldRow() + " -> " + e.newRow());
            changed.countDown();
          });
      listening.countDown(); // (the test's: a change applied before this line is not heard)
      if (!accounts.awaitReady(Duration.ofSeconds(10))) {
        throw new IllegalStateException("no snapshot of shop.accounts within 10 s");
      }
      Account ann = accounts.get(42); // a memory lookup; 42, 42L are the same key
      System.out.println("ann: " + ann);
      changed.await(10, TimeUnit.SECONDS);
      return accounts.stream().map(Account::balance).reduce(BigDecimal.ZERO, BigDecimal::add);
    }
  }

  // --- example end

  // --- listeners example (docs/CLIENT.md, "Listeners")
  static TablecastClient withListeners(String server, Consumer<String> alert) {
    TablecastClient client =
        TablecastClient.builder()
            .servers(server)
            .connectionListener(
                new ConnectionListener() {
                  @Override
                  public void disconnected(String server, String reason) {
                    log.warn("lost {} ({}); reconnecting", server, reason);
                  }
                })
            .errorListener(
                new ErrorListener() {
                  @Override
                  public void rowNotMapped(
                      String table, Object key, Class<?> rowType, RuntimeException cause) {
                    alert.accept(
                        "row " + key + " of " + table + " does not fit " + rowType.getSimpleName());
                  }
                })
            .build();
    return client;
  }

  // --- listeners example end

  @Test
  void exampleFromTheDocsRuns() throws Exception {
    try (FakeServer server = new FakeServer()) {
      CountDownLatch listening = new CountDownLatch(1);
      CountDownLatch changed = new CountDownLatch(1);
      CompletableFuture<BigDecimal> total =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return example(server.address(), listening, changed);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      FakeServer.Conn conn = server.accept();
      assertThat(conn.expect(Message.Hello.class).user()).isEqualTo("app");
      conn.send(new Message.Welcome(1, "fake", FakeServer.EPOCH, 1, 10_000));
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          "shop.accounts",
          List.of("id"),
          1,
          row("id", 42, "owner", "ann", "balance", "10.00"),
          row("id", 43, "owner", "bob", "balance", "5.50"));
      // a listener hears the changes applied after it was added: the change is sent once it is
      // (the scripted server answers at once; two CI runs saw the change beat the listener)
      assertThat(listening.await(10, TimeUnit.SECONDS)).isTrue();
      conn.send(
          batch(
              2,
              update(
                  "shop.accounts",
                  row("id", 43, "owner", "bob", "balance", "5.50"),
                  row("id", 43, "owner", "bob", "balance", "6.50"),
                  43)));
      assertThat(total.get(10, TimeUnit.SECONDS)).isEqualByComparingTo("16.50");
    }
  }

  @Test
  void listenersExampleFromTheDocsAlertsOnARowThatDoesNotFit() throws Exception {
    List<String> alerts = new CopyOnWriteArrayList<>();
    try (FakeServer server = new FakeServer();
        TablecastClient client = withListeners(server.address(), alerts::add)) {
      TableMirror<Account> accounts = client.mirror("shop.accounts", Account.class);
      FakeServer.Conn conn = server.handshake(1);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          "shop.accounts", List.of("id"), 1, row("id", 42, "owner", "ann", "balance", "ten"));
      assertThat(accounts.awaitReady(Duration.ofSeconds(10))).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> !alerts.isEmpty());
      assertThat(alerts).containsExactly("row 42 of shop.accounts does not fit Account");
    }
  }
}
