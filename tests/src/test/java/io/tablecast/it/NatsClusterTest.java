package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
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
    try (Pipeline p = Pipeline.create(kind, "natscluster", List.of(InsertsOnce.DDL), "wide");
        NatsCluster cluster = NatsCluster.start(3, NatsScaleOutTest.MAX_PAYLOAD);
        Connection admin =
            Nats.connect(
                new Options.Builder().servers(cluster.urls().toArray(String[]::new)).build());
        InsertsOnce load = new InsertsOnce()) {
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
        load.listen(m);
        load.start(p, 1);
        await().atMost(CONVERGE).until(() -> load.seen() >= 20);

        String leader = jsm.getStreamInfo(stream).getClusterInfo().getLeader();
        cluster.node(leader).stop(); // SIGKILL the node that leads the stream
        load.awaitMore(50, CONVERGE);
        assertThat(jsm.getStreamInfo(stream).getClusterInfo().getLeader())
            .as("another node leads the stream")
            .isNotEqualTo(leader);
        load.awaitEveryRowOnce(p, m, load.stop(), CONVERGE, "across the node's loss");
      }
    }
  }
}
