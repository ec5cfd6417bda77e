package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@code tablecast capture}'s connections to NATS go silent without closing (a NAT or firewall that
 * forgot them), while new connections pass. Its publishes and lease renewals time out on them, and
 * the NATS client's own pings would give them up only after minutes: the capture pings NATS after a
 * timeout, and makes a connection that does not answer again. Before, a capture whose publishing
 * connection alone went silent kept its lease (renewed on the other connection) and published
 * nothing, so the servers said nothing while their mirrors fell behind (the row had not arrived
 * after 30 s); one whose connections all went silent lost its lease, and the servers said every
 * table stale, but never took it again (the row had not arrived after 60 s).
 */
class SilentNatsCaptureTest {
  private static final List<String> DDL =
      List.of("CREATE TABLE items (id int PRIMARY KEY, v varchar(10))");

  @Test
  void aCaptureWhosePublishingConnectionWentSilentPublishesOnANewOne() throws Exception {
    silentCapture("silent_publisher", CuttableProxy::stallNewest, Duration.ofSeconds(30), 1);
  }

  @Test
  void aCaptureWhoseConnectionsAllWentSilentTakesItsLeaseAgainOnNewOnes() throws Exception {
    silentCapture("silent_capture", CuttableProxy::stall, Duration.ofSeconds(60), 2);
  }

  /**
   * A capture reaching NATS through a proxy, a server reaching it directly; {@code silence} turns
   * some of the capture's connections into black holes, and the row written then must arrive within
   * {@code within}; the capture then holds the lease in its {@code term}th term (a second when its
   * lease's connection went silent too: the lease was lost, and taken again on a new connection).
   */
  private static void silentCapture(
      String name, Consumer<CuttableProxy> silence, Duration within, int term) throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, name, DDL, "items");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", URI.create(n.url()).getPort());
        CaptureStandby capture =
            CaptureStandby.start(
                p.sourceConfig(),
                new NatsSettings(
                    List.of("nats://" + proxy.address()),
                    NatsScaleOutTest.nats(n, p).stream(),
                    null,
                    null,
                    null),
                "capture");
        TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
        TablecastClient client = NatsScaleOutTest.client("c", "127.0.0.1:" + edge.port())) {
      // the lease's connection first, then the publishing one, made once the lease is held
      await().atMost(Duration.ofSeconds(30)).until(capture::leading);
      TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
      p.sql("INSERT INTO items VALUES (1, 'a')");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.get(1) != null);

      silence.accept(proxy);
      long silent = System.currentTimeMillis();
      p.sql("INSERT INTO items VALUES (2, 'b')");
      await().atMost(within).alias("published again").until(() -> items.get(2) != null);
      System.out.printf(
          "SilentNatsCaptureTest %s: the row arrived after %d ms%n",
          name, System.currentTimeMillis() - silent);
      if (term > 1) {
        await()
            .atMost(Duration.ofSeconds(60))
            .alias("the lease taken again")
            .until(() -> capture.terms() >= term && capture.leading());
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> items.staleReason() == null);
      assertThat(capture.terms()).isEqualTo(term);
      p.sql("INSERT INTO items VALUES (3, 'c')");
      p.awaitMirrorEqualsTable(items, "items");
    }
  }
}
