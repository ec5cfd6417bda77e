package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Message;
import io.nats.client.Nats;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server of a stream whose image cannot take a change asks the capture leader to read the table
 * again (docs/SCALE-OUT.md), instead of leaving it stale until a reconciliation pass. An image
 * fails only on what a capture bug would publish, so the test makes the stream miss a row (its
 * outbox row deleted in its own transaction) and sends the request as such a server does, on the
 * leader's subject; reconciliation is off, so only that read can repair the mirror.
 */
class NatsRereadTest {
  static final Duration CONVERGE = Duration.ofSeconds(60);
  static final String DDL = "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(40))";

  @Test
  void aTableAServerAsksTheLeaderToReadAgainIsReadAndItsMirrorsRepaired() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "natsreread", List.of(DDL), "notes");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture =
            StreamCapture.start(
                new SourceConfig(
                    p.db.jdbcUrl(),
                    null,
                    null,
                    List.of(p.db.table("notes")),
                    true,
                    null,
                    null,
                    Duration.ZERO, // no reconciliation: it would repair the image too
                    Duration.ofSeconds(1)),
                NatsScaleOutTest.nats(n, p),
                "it-capture");
        TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
        TablecastClient client = NatsScaleOutTest.client("reader", "127.0.0.1:" + edge.port())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
      p.transaction(
          "INSERT INTO notes VALUES (7, 'never in the stream')",
          "DELETE FROM tablecast_outbox WHERE table_name = '" + p.db.table("notes") + "'");
      p.sql("INSERT INTO notes VALUES (8, 'in the stream')");
      await().atMost(CONVERGE).until(() -> m.get(8) != null);
      assertThat(m.get(7)).as("the stream lost it").isNull();

      try (io.nats.client.Connection asking = Nats.connect(n.url())) {
        Message taken =
            asking.request(
                "tablecast.TC_" + p.db.schema() + ".reread",
                p.db.table("notes").getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(10));
        assertThat(taken).as("the leader took the request").isNotNull();
        assertThat(taken.isStatusMessage()).as("no responders: %s", taken).isFalse();
      }
      await().atMost(CONVERGE).until(() -> m.get(7) != null);
      assertThat(m.get(7).get("body")).isEqualTo("never in the stream");
    }
  }
}
