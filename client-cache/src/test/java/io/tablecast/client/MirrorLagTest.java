package io.tablecast.client;

import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A mirror says how long its last transaction took from the database (the batch's capture time) to
 * the mirror: -1 before one came, then the delay measured when it was applied; a batch without a
 * capture time leaves it as it was.
 */
class MirrorLagTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void lagIsTheDelayOfTheLastTransactionFromTheDatabaseToTheMirror() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      assertThat(m.lagMillis()).as("no transaction yet").isEqualTo(-1);

      long written = System.currentTimeMillis() - 3_000;
      conn.send(new Message.ChangeBatch(6, written, List.of(insert(T, row("id", 2, "v", "b"), 2))));
      await().atMost(WAIT).until(() -> m.position() == 6);
      long lag = m.lagMillis();
      assertThat(lag).isBetween(3_000L, System.currentTimeMillis() - written);

      conn.send(new Message.ChangeBatch(7, 0, List.of(insert(T, row("id", 3, "v", "c"), 3))));
      await().atMost(WAIT).until(() -> m.position() == 7);
      assertThat(m.lagMillis()).as("capture time unknown: kept").isEqualTo(lag);

      // a batch of other tables only advances the position: the figure is this table's
      conn.send(new Message.ChangeBatch(8, System.currentTimeMillis() - 60_000, List.of()));
      await().atMost(WAIT).until(() -> m.position() == 8);
      assertThat(m.lagMillis()).isEqualTo(lag);
    }
  }
}
