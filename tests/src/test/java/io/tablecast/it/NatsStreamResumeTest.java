package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PurgeOptions;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.protocol.MessageType;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client whose position is older than its server's resume buffer (docs/SCALE-OUT.md): replayed
 * from the NATS stream while the stream holds it, re-snapshotted when it does not; and a server
 * started while NATS is away waits for it. Real {@code nats-server -js} processes on free ports;
 * the servers keep two batches in their resume buffer.
 */
class NatsStreamResumeTest {
  static final Duration CONVERGE = Duration.ofSeconds(60);

  private static NatsSettings nats(NatsServerProcess n, Pipeline p) {
    return new NatsSettings(List.of(n.url()), stream(p), null, null, null);
  }

  private static String stream(Pipeline p) {
    return "TC_" + p.db.schema();
  }

  private static TablecastServer serve(NatsServerProcess n, Pipeline p)
      throws InterruptedException {
    return serve(n, p, 0);
  }

  private static TablecastServer serve(NatsServerProcess n, Pipeline p, int port)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", "edge")
            .listen("127.0.0.1", port)
            .set("resume_buffer.batches", 2)
            .set("resume_buffer.bytes", 1 << 20)
            .set("nats", nats(n, p))
            .build());
  }

  @Test
  void aClientOlderThanTheResumeBufferIsReplayedFromTheStreamAndJoinsTheLiveStreamWithoutASnapshot()
      throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsreplay", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        TablecastServer server = serve(n, p);
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", server.port());
        TablecastClient client = NatsScaleOutTest.client("replayed", proxy.address());
        InsertsOnce load = new InsertsOnce()) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
      List<String> events = new CopyOnWriteArrayList<>();
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      load.start(p, 1);
      await().atMost(CONVERGE).until(() -> events.size() >= 20);
      int snapshots = proxy.frames(MessageType.SNAPSHOT_BEGIN);

      proxy.block(true); // the client is away while many batches are committed
      proxy.cut();
      long left = server.position();
      await().atMost(CONVERGE).until(() -> server.position() > left + 50);
      p.sql("UPDATE wide SET pad = 'updated' WHERE id = 3");
      p.sql("DELETE FROM wide WHERE id = 4");
      long updated = server.position();
      await().atMost(CONVERGE).until(() -> server.position() > updated + 5);

      proxy.block(false); // it comes back while the inserts go on: replay, then the live stream
      await().atMost(CONVERGE).until(() -> proxy.frames(MessageType.RESUMED) == 1);
      int replayed = events.size();
      await().atMost(CONVERGE).until(() -> events.size() > replayed + 20);
      int rows = load.stop();

      try (MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
        tables.awaitEqual("after a replay from the stream", Map.of("wide", m), CONVERGE);
      }
      Map<String, Integer> counts = new HashMap<>();
      events.forEach(e -> counts.merge(e, 1, Integer::sum));
      assertThat(counts)
          .as("each change once, none lost")
          .allSatisfy((e, c) -> assertThat(c).isOne());
      assertThat(events.stream().filter(e -> e.startsWith("INSERT"))).hasSize(rows);
      assertThat(events).contains("UPDATE 3", "DELETE 4");
      assertThat(proxy.frames(MessageType.SNAPSHOT_BEGIN))
          .as("no snapshot on resume")
          .isEqualTo(snapshots);
      assertThat(server.metrics().resumesFromStream()).isEqualTo(1);
      assertThat(server.metrics().resumesServed()).as("not from the resume buffer").isZero();
    }
  }

  @Test
  void aClientWhosePositionTheStreamNoLongerHoldsIsResnapshotted() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natstrimmed", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        TablecastServer server = serve(n, p);
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", server.port());
        TablecastClient client = NatsScaleOutTest.client("trimmed", proxy.address());
        Connection admin = Nats.connect(n.url())) {
      for (int id = 1; id <= 10; id++) {
        p.sql("INSERT INTO wide VALUES (" + id + ", 'row " + id + "')");
      }
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
      await().atMost(CONVERGE).until(() -> m.size() == 10);
      List<String> events = new CopyOnWriteArrayList<>();
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      int snapshots = proxy.frames(MessageType.SNAPSHOT_BEGIN);

      proxy.block(true);
      proxy.cut();
      for (int id = 11; id <= 20; id++) {
        long before = server.position();
        p.sql("INSERT INTO wide VALUES (" + id + ", 'row " + id + "')");
        await().atMost(CONVERGE).until(() -> server.position() > before);
      }
      long last = server.position(); // read before the write: the server may apply it at once
      p.sql("UPDATE wide SET pad = 'updated' WHERE id = 3");
      await().atMost(CONVERGE).until(() -> server.position() > last);
      JetStreamManagement jsm = admin.jetStreamManagement();
      long lastSequence = jsm.getStreamInfo(stream(p)).getStreamState().getLastSequence();
      jsm.purgeStream(stream(p), PurgeOptions.builder().sequence(lastSequence).build());
      assertThat(jsm.getStreamInfo(stream(p)).getStreamState().getFirstSequence())
          .as("the stream keeps only its last message")
          .isEqualTo(lastSequence);

      proxy.block(false);
      await().atMost(CONVERGE).until(() -> proxy.frames(MessageType.SNAPSHOT_BEGIN) > snapshots);
      try (MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
        tables.awaitEqual("after a re-snapshot", Map.of("wide", m), CONVERGE);
      }
      List<String> expected = new java.util.ArrayList<>();
      for (int id = 11; id <= 20; id++) {
        expected.add("INSERT " + id);
      }
      expected.add("UPDATE 3");
      assertThat(events)
          .as("the re-snapshot fires only the real differences")
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(proxy.frames(MessageType.RESUMED)).isZero();
      assertThat(server.metrics().resumesFromStream()).isZero();
    }
  }

  @Test
  void aServerStartedWhileNatsIsAwayWaitsForItAndServesOnceItIsBack() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsserveaway", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p)) {
      p.sql("INSERT INTO wide VALUES (1, 'before')");
      n.stop();
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
      CompletableFuture<TablecastServer> starting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return serve(n, p, port);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });
      try {
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .alias("the server waits for NATS instead of failing")
            .until(() -> !starting.isDone());
        HttpResponse<String> health =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body())
            .as("its port tells what it waits for")
            .contains("\"status\":\"STARTING\"")
            .contains("waiting for NATS (the log says why)");
        p.sql("INSERT INTO wide VALUES (2, 'while NATS is away')");
        n.restart();
        try (TablecastServer server = starting.get(CONVERGE.toSeconds(), TimeUnit.SECONDS);
            TablecastClient client =
                NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
          TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
          p.sql("INSERT INTO wide VALUES (3, 'after')");
          try (MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
            tables.awaitEqual("a server started while NATS was away", Map.of("wide", m), CONVERGE);
          }
          assertThat(m.size()).isEqualTo(3);
        }
      } finally {
        starting.cancel(true);
        starting.thenAccept(TablecastServer::close);
      }
    }
  }
}
