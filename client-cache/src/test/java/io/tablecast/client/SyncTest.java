package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TablecastClient#sync} against a scripted server: it completes on the server's answer, with
 * the changes sent before the answer applied; it is asked again on the next connection when the
 * connection drops; it fails with the server's reason, or when no answer comes in time; and a
 * server of version 3 is spoken to in version 3, without sync, instead of refusing the client.
 */
class SyncTest {
  static final String T = "shop.accounts";
  static final Duration WAIT = Duration.ofSeconds(10);

  FakeServer server;
  TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private TableMirror<Map<String, Object>> connectReady(FakeServer.Conn[] conn) throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .clientName("sync-test")
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    conn[0] = welcome(server.accept(), Message.PROTOCOL_VERSION, 10);
    conn[0].expect(Message.Subscribe.class);
    conn[0].snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    return m;
  }

  private static FakeServer.Conn welcome(FakeServer.Conn c, int version, long position)
      throws InterruptedException {
    assertThat(c.expect(Message.Hello.class).protocolVersion()).isEqualTo(version);
    return c.send(new Message.Welcome(version, "fake", FakeServer.EPOCH, position, 10_000));
  }

  // --- sync example start (docs/CLIENT.md, "Read your writes")
  record Account(long id, String owner, BigDecimal balance) {}

  static Account readYourWrite(
      TablecastClient client, TableMirror<Account> accounts, Runnable commitThroughJdbc)
      throws InterruptedException {
    commitThroughJdbc.run(); // e.g. UPDATE shop.accounts SET balance = ... WHERE id = 42; COMMIT
    client.sync(Duration.ofSeconds(5)); // TablecastException if not answered within 5 s
    return accounts.get(42); // has the update, and every other commit made before sync()
  }

  // --- sync example end

  @Test
  void theSyncExampleOfTheDocsRunsAndIsTheOneTheDocumentShows() throws Exception {
    FakeServer.Conn[] conn = new FakeServer.Conn[1];
    connectReady(conn);
    TableMirror<Account> accounts = client.mirror(T, Account.class);
    CompletableFuture<Account> read =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return readYourWrite(client, accounts, () -> {});
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Message.Sync asked = conn[0].expect(Message.Sync.class);
    conn[0].send(
        batch(11, insert(T, row("id", 42, "owner", "ann", "balance", "90.00"), 42)),
        new Message.Synced(asked.id(), 11, null));
    assertThat(read.get(10, TimeUnit.SECONDS).balance()).isEqualByComparingTo("90.00");

    DocExamples.assertDocumentShows("\n## Read your writes\n", SyncTest.class, "sync");
  }

  @Test
  void syncCompletesOnTheAnswerWithTheChangesSentBeforeItApplied() throws Exception {
    FakeServer.Conn[] conn = new FakeServer.Conn[1];
    TableMirror<Map<String, Object>> m = connectReady(conn);
    CompletableFuture<Void> done = client.syncAsync();
    Message.Sync asked = conn[0].expect(Message.Sync.class);
    assertThat(done).isNotDone();
    conn[0].send(
        batch(11, insert(T, row("id", 2, "v", "b"), 2)), new Message.Synced(asked.id(), 11, null));
    done.get(10, TimeUnit.SECONDS);
    assertThat(m.get(2)).as("the batch sent before the answer").containsEntry("v", "b");
  }

  @Test
  void aSyncOpenWhenTheConnectionDropsIsAskedAgainOnTheNextConnection() throws Exception {
    FakeServer.Conn[] conn = new FakeServer.Conn[1];
    TableMirror<Map<String, Object>> m = connectReady(conn);
    CompletableFuture<Void> done = client.syncAsync();
    conn[0].expect(Message.Sync.class);
    conn[0].close();
    FakeServer.Conn again = welcome(server.accept(), Message.PROTOCOL_VERSION, 10);
    assertThat(again.expect(Message.Subscribe.class).resumePosition()).isEqualTo(10);
    Message.Sync asked = again.expect(Message.Sync.class);
    assertThat(done).isNotDone();
    again.send(
        new Message.Resumed(List.of(T), List.of(), 10),
        batch(11, insert(T, row("id", 3, "v", "c"), 3)),
        new Message.Synced(asked.id(), 11, null));
    done.get(10, TimeUnit.SECONDS);
    assertThat(m.get(3)).containsEntry("v", "c");
  }

  @Test
  void aServerThatCannotAnswerFailsSyncWithItsReasonAndTheConnectionStays() throws Exception {
    FakeServer.Conn[] conn = new FakeServer.Conn[1];
    TableMirror<Map<String, Object>> m = connectReady(conn);
    CompletableFuture<Void> done = client.syncAsync();
    Message.Sync asked = conn[0].expect(Message.Sync.class);
    conn[0].send(new Message.Synced(asked.id(), -1, "it serves from a NATS stream"));
    assertThatThrownBy(() -> done.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(TablecastException.class)
        .hasMessageContaining("cannot answer sync: it serves from a NATS stream");
    conn[0].send(batch(11, insert(T, row("id", 2, "v", "b"), 2)));
    org.awaitility.Awaitility.await().atMost(WAIT).until(() -> m.get(2) != null);
  }

  @Test
  void aSyncWithoutAnAnswerInTimeSaysWhereTheClientStands() throws Exception {
    FakeServer.Conn[] conn = new FakeServer.Conn[1];
    connectReady(conn);
    assertThatThrownBy(() -> client.sync(Duration.ofMillis(200)))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("sync: no answer within 200 ms (connected to ");
  }

  @Test
  void aServerOfVersion3IsSpokenToInVersion3AndSyncFailsNamingIt() throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    // the client steps down one version per refusal: 5, 4, then 3
    for (int refused = Message.PROTOCOL_VERSION; refused > 3; refused--) {
      FakeServer.Conn c = server.accept();
      assertThat(c.expect(Message.Hello.class).protocolVersion()).isEqualTo(refused);
      c.send(
          Message.Error.fatal(
              ErrorCode.UNSUPPORTED_VERSION,
              "unsupported protocol version " + refused + "; server speaks 2..3"));
    }
    FakeServer.Conn older = welcome(server.accept(), 3, 10);
    older.expect(Message.Subscribe.class);
    older.snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"));
    assertThat(m.awaitReady(WAIT))
        .as("the refusals of versions 5 and 4 did not fail the mirror")
        .isTrue();
    assertThatThrownBy(() -> client.sync(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("speaks protocol version 3, which has no sync");
  }
}
