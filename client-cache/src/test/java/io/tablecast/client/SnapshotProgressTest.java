package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A mirror tells how far its snapshot has come while the rows arrive, chunk by chunk. */
class SnapshotProgressTest {
  private static final String T = "shop.accounts";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private FakeServer server;
  private TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  @Test
  void snapshotProgressCountsTheRowsReceivedAgainstTheRowsAnnounced() throws Exception {
    server = new FakeServer();
    client = TablecastClient.builder().servers(server.address()).clientName("progress").build();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(m.snapshotProgress()).isEqualTo(SnapshotProgress.NONE);
    FakeServer.Conn conn = server.handshake(7);
    conn.expect(Message.Subscribe.class);
    List<ColumnInfo> cols = List.of(new ColumnInfo("id", "int", ColumnKind.INTEGER));
    conn.send(
        new Message.SnapshotBegin(T, cols, List.of("id"), 7, 3),
        new Message.SnapshotRows(T, List.of(row("id", 1), row("id", 2))));
    await().atMost(WAIT).until(() -> m.snapshotProgress().equals(new SnapshotProgress(2, 3)));
    assertThat(m.isReady()).isFalse();

    conn.send(new Message.SnapshotRows(T, List.of(row("id", 3))), new Message.SnapshotEnd(T, 7));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.snapshotProgress()).isEqualTo(new SnapshotProgress(3, 3));
  }
}
