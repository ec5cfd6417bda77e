package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A frame larger than the client's {@code maxFrameBytes} (a row that travels whole, bigger than the
 * limit) is refused by the client, which then reconnects and meets it again: it says why, with the
 * frame's size, the limit and the setting to raise, to a mirror waiting for its snapshot and to the
 * connection listeners, instead of Netty's bare "Adjusted frame length exceeds".
 */
class FrameTooLargeTest {
  static final String T = "shop.items";

  @Test
  void aFrameOverTheLimitIsExplainedWithTheSettingToRaise() throws Exception {
    List<String> reasons = Collections.synchronizedList(new ArrayList<>());
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            TablecastClient.builder()
                .servers(server.address())
                .maxFrameBytes(4096)
                .reconnectBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .connectionListener(
                    new ConnectionListener() {
                      @Override
                      public void disconnected(String s, String reason) {
                        reasons.add(reason);
                      }
                    })
                .build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "x".repeat(10_000)));
      assertThatThrownBy(() -> m.awaitReady(Duration.ofSeconds(10)))
          .isInstanceOf(TablecastException.class)
          .hasMessageContaining("larger than this client's maxFrameBytes (4,096 bytes)")
          .hasMessageContaining("TablecastClient.Builder.maxFrameBytes")
          .hasMessageContaining("tablecast.client.max-frame-size");
      await().atMost(Duration.ofSeconds(10)).until(() -> !reasons.isEmpty());
      assertThat(reasons.get(0)).contains("maxFrameBytes (4,096 bytes)");
    }
  }
}
