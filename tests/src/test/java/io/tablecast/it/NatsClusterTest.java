package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.testing.NatsCluster;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A 3-node JetStream cluster (three local {@code nats-server} processes with routes), the stream
 * and its buckets with 3 replicas; the node leading the stream is killed while rows are inserted,
 * and the client still receives every row exactly once.
 */
class NatsClusterTest {
  static final Duration CONVERGE = Duration.ofSeconds(90);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void losingTheStreamsLeaderNodeWhileWritesGoOnLosesAndRepeatsNothing(Kind kind) throws Exception {
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (Pipeline p =
            Pipeline.create(
                kind,
                "natscluster",
                List.of("CREATE TABLE wide (id int PRIMARY KEY, pad text)"),
                "wide");
        NatsCluster cluster = NatsCluster.start(3, NatsScaleOutTest.MAX_PAYLOAD);
        Connection admin =
            Nats.connect(
                new Options.Builder().servers(cluster.urls().toArray(String[]::new)).build())) {
      String stream = "TC_" + p.db.schema();
      JetStreamManagement jsm = admin.jetStreamManagement();
      // a new cluster elects its JetStream meta leader first: create the stream once it can
      await()
          .atMost(CONVERGE)
          .ignoreExceptions()
          .until(
              () ->
                  jsm.addStream(
                          StreamConfiguration.builder()
                              .name(stream)
                              .subjects("tablecast." + stream)
                              .storageType(StorageType.File)
                              .replicas(3)
                              .build())
                      != null);
      NatsSettings nats =
          new NatsSettings(cluster.urls(), stream, null, null, null).withPlacement(3, "file");
      Map<Object, AtomicInteger> inserts = new ConcurrentHashMap<>();
      try (CaptureStandby capture = CaptureStandby.start(p.sourceConfig(), nats, "capture");
          TablecastServer server =
              TablecastServer.start(
                  ServerConfig.builder()
                      .set("server_name", "edge")
                      .listen("127.0.0.1", 0)
                      .set("nats", nats)
                      .build());
          TablecastClient client =
              NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
        await().atMost(CONVERGE).until(capture::leading);
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
        m.addListener(
            e -> {
              if (e.op() == ChangeType.INSERT) {
                inserts.computeIfAbsent(e.key(), k -> new AtomicInteger()).incrementAndGet();
              }
            });
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger written = new AtomicInteger();
        Future<?> writes =
            writer.submit(
                () -> {
                  for (int id = 1; !stop.get(); id++) {
                    p.sql("INSERT INTO wide VALUES (" + id + ", 'row " + id + "')");
                    written.incrementAndGet();
                    TimeUnit.MILLISECONDS.sleep(5);
                  }
                  return null;
                });
        await().atMost(CONVERGE).until(() -> inserts.size() >= 20);

        String leader = jsm.getStreamInfo(stream).getClusterInfo().getLeader();
        cluster.node(leader).stop(); // SIGKILL the node that leads the stream
        int before = inserts.size();
        await().atMost(CONVERGE).until(() -> inserts.size() >= before + 50);
        assertThat(jsm.getStreamInfo(stream).getClusterInfo().getLeader())
            .as("another node leads the stream")
            .isNotEqualTo(leader);
        stop.set(true);
        writes.get();

        await()
            .atMost(CONVERGE)
            .until(() -> inserts.size() == written.get() && m.size() == written.get());
        try (MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
          tables.awaitEqual("after losing a node", Map.of("wide", m), CONVERGE);
        }
        assertThat(inserts.values())
            .as("every insert reached the client exactly once across the node's loss")
            .allMatch(c -> c.get() == 1);
      }
    } finally {
      writer.shutdownNow();
    }
  }
}
