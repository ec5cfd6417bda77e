package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A server that reads groups of its stream it cannot read (a capture of a newer version during a
 * rolling upgrade, say) says every table stale once, naming the way out, and is not told again for
 * every such group: the hub tells every session a stale reason said again in other words, and each
 * group's reason names its own sequence.
 */
class NatsUnreadableGroupTest {

  @Test
  void groupsTheServerCannotReadMakeEveryTableStaleOnce() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsunread", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        TablecastServer server =
            TablecastServer.start(
                ServerConfig.builder()
                    .set("server_name", "edge")
                    .listen("127.0.0.1", 0)
                    .set(
                        "nats",
                        new NatsSettings(List.of(n.url()), "TC_" + p.db.schema(), null, null, null))
                    .build());
        TablecastClient client =
            NatsScaleOutTest.client("unreadable", "127.0.0.1:" + server.port());
        Connection nats = Nats.connect(n.url())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
      List<String> heard = new CopyOnWriteArrayList<>();
      m.addStaleListener(reason -> heard.add(String.valueOf(reason)));

      for (int g = 1; g <= 3; g++) { // a layout version this server does not read
        Headers h =
            new Headers()
                .add("Tablecast-Group", "newer-" + g)
                .add("Tablecast-Part", "1/1")
                .add("Tablecast-Kind", "batch");
        nats.jetStream()
            .publish(
                NatsMessage.builder()
                    .subject("tablecast.TC_" + p.db.schema())
                    .headers(h)
                    .data(new byte[] {99})
                    .build());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> !heard.isEmpty());
      assertThat(m.staleReason())
          .contains("could not be read")
          .contains("layout version 99")
          .contains("restart this server with the version capture runs");
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(heard).as("said once, not per group").hasSize(1));
    }
  }
}
