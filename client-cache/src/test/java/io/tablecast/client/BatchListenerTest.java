package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.Message;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link TableMirror#addBatchListener}: one call per applied batch, with its changes at once. */
class BatchListenerTest {
  static final String T = "shop.accounts";
  static final String OTHER = "shop.other";
  static final Duration WAIT = Duration.ofSeconds(10);

  FakeServer server;
  TablecastClient client;

  @BeforeEach
  void start() throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .clientName("batch-listener-test")
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  /** What a batch listener saw in one call. */
  record Call(List<Object> keys, List<ChangeType> ops, boolean visible, int changesHeardBefore) {}

  @Test
  void eachBatchIsOneCallWithItsChangesInOrderAfterTheChangeListenersAndVisible() throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror(T);
    List<ChangeEvent<Map<String, Object>>> heard = new CopyOnWriteArrayList<>();
    m.addListener(heard::add);
    List<Call> calls = new CopyOnWriteArrayList<>();
    m.addBatchListener(
        changes -> {
          List<Object> keys = new ArrayList<>();
          List<ChangeType> ops = new ArrayList<>();
          boolean visible = true;
          for (ChangeEvent<Map<String, Object>> c : changes) {
            keys.add(c.key());
            ops.add(c.op());
            visible &= (m.get(c.key()) == null) == (c.op() == ChangeType.DELETE);
          }
          calls.add(new Call(keys, ops, visible, heard.size()));
        });
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"), row("id", 2, "v", "b"));
    assertThat(m.awaitReady(WAIT)).isTrue();

    conn.send(
        batch(
            11,
            insert(T, row("id", 3, "v", "c"), 3),
            update(T, row("id", 1, "v", "a"), row("id", 1, "v", "a2"), 1),
            delete(T, row("id", 2, "v", "b"), 2)),
        batch(12), // no change: no call
        batch(13, insert(OTHER, row("id", 9), 9)), // another table's batch: no call
        batch(14, insert(T, row("id", 4, "v", "d"), 4)));
    await().atMost(WAIT).until(() -> calls.size() == 2 && m.position() == 14);

    assertThat(calls)
        .extracting(Call::keys, Call::ops)
        .containsExactly(
            tuple(
                List.of(3L, 1L, 2L),
                List.of(ChangeType.INSERT, ChangeType.UPDATE, ChangeType.DELETE)),
            tuple(List.of(4L), List.of(ChangeType.INSERT)));
    // the batch was visible when told, and the change listeners had heard it whole
    assertThat(calls).extracting(Call::visible).containsExactly(true, true);
    assertThat(calls).extracting(Call::changesHeardBefore).containsExactly(3, 4);
  }

  @Test
  void theChangesAreUnmodifiableAThrowingListenerIsSkippedAndCancelStopsDelivery()
      throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror(T);
    List<Throwable> modifications = new CopyOnWriteArrayList<>();
    m.addBatchListener(
        changes -> {
          try {
            changes.clear();
          } catch (UnsupportedOperationException e) {
            modifications.add(e);
          }
          throw new IllegalStateException("boom");
        });
    List<Integer> sizes = new CopyOnWriteArrayList<>();
    Subscription sub = m.addBatchListener(changes -> sizes.add(changes.size()));
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1);
    assertThat(m.awaitReady(WAIT)).isTrue();

    conn.send(
        batch(2, insert(T, row("id", 1), 1), insert(T, row("id", 2), 2)),
        batch(3, insert(T, row("id", 3), 3)));
    await().atMost(WAIT).until(() -> sizes.size() == 2);
    assertThat(sizes).containsExactly(2, 1);
    assertThat(modifications).hasSize(2);

    sub.cancel();
    conn.send(batch(4, insert(T, row("id", 4), 4)));
    await().atMost(WAIT).until(() -> m.size() == 4);
    List<Integer> after = new CopyOnWriteArrayList<>();
    m.addBatchListener(changes -> after.add(changes.size()));
    conn.send(batch(5, insert(T, row("id", 5), 5)));
    await().atMost(WAIT).until(() -> after.size() == 1);
    assertThat(sizes).containsExactly(2, 1);
    assertThatThrownBy(() -> m.addBatchListener(null)).isInstanceOf(NullPointerException.class);
  }

  record Account(long id, String owner, BigDecimal balance) {}

  @Test
  void theExampleFromTheDocsRuns() throws Exception {
    StringWriter written = new StringWriter();
    PrintWriter out = new PrintWriter(written);
    FakeServer.Conn conn = server.handshake(1);
    // --- batch example start
    TableMirror<Account> accounts = client.mirror("shop.accounts", Account.class);
    accounts.addBatchListener(
        changes -> { // List<ChangeEvent<Account>>, unmodifiable
          for (ChangeEvent<Account> c : changes) {
            out.print(c.op() + " " + c.key() + "\n"); // out: a PrintWriter
          }
          out.flush(); // once per batch
        });
    // --- batch example end
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1, row("id", 1, "owner", "ann", "balance", "1.00"));
    assertThat(accounts.awaitReady(WAIT)).isTrue();
    conn.send(
        batch(
            2,
            update(
                T,
                row("id", 1, "owner", "ann", "balance", "1.00"),
                row("id", 1, "owner", "ann", "balance", "2.00"),
                1),
            insert(T, row("id", 2, "owner", "bob", "balance", "5.00"), 2)));
    await().atMost(WAIT).until(() -> written.toString().lines().count() == 2);
    assertThat(written.toString()).isEqualTo("UPDATE 1\nINSERT 2\n");
    DocExamples.assertDocumentShows("\n## Batch listeners\n", BatchListenerTest.class, "batch");
  }
}
