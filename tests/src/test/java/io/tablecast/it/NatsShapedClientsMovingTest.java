package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shaped Java clients moving between the two servers of a NATS stream under {@link
 * OrdersWorkload}'s writes, for {@code tablecast.soak.seconds} (8 s) with the random choices of
 * {@code tablecast.seed} (2): each client knows both servers, each server is behind a proxy, and
 * every 0.5-1.5 s one proxy or both cut their connections, half the time (both: always) also
 * refusing new ones for 0.5-2 s, so that clients resume on the other server, through their shape,
 * from its resume buffer (the last 50 batches) or from the stream's history; the subquery's shape
 * takes a snapshot instead (its other table's past is not kept). Then each mirror equals its {@code
 * SELECT}.
 */
class NatsShapedClientsMovingTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shapedMirrorsEqualTheirSelectAfterMovingBetweenServersUnderWrites(Kind kind)
      throws Exception {
    System.out.printf("NatsShapedClientsMovingTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
            Pipeline.create(
                kind, "nats_shapes", ShapedMirrorEndToEndTest.ordersDdl(), "customers", "orders");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        TablecastServer one = serve(n, p, "one");
        TablecastServer two = serve(n, p, "two");
        CuttableProxy toOne = new CuttableProxy("127.0.0.1", one.port());
        CuttableProxy toTwo = new CuttableProxy("127.0.0.1", two.port())) {
      List<OrdersWorkload.Shaped> shapes = OrdersWorkload.shapes(p);
      List<TablecastClient> clients = new ArrayList<>();
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      try {
        for (OrdersWorkload.Shaped s : shapes) {
          TablecastClient c =
              NatsScaleOutTest.client("moving-" + mirrors.size(), toOne.address(), toTwo.address());
          clients.add(c);
          TableMirror<Map<String, Object>> m = c.mirror(s.table(), s.shape());
          assertThat(m.awaitReady(Duration.ofSeconds(60))).as("ready: " + s.shape()).isTrue();
          mirrors.add(m);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads =
            new ArrayList<>(OrdersWorkload.writers(p, SEED, stop, committed, errors));
        Random chaos = new Random(SEED + 7);
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  while (!stop.get()) {
                    Thread.sleep(500 + chaos.nextInt(1000)); // pacing between faults
                    List<CuttableProxy> proxies =
                        switch (chaos.nextInt(3)) {
                          case 0 -> List.of(toOne);
                          case 1 -> List.of(toTwo);
                          default -> List.of(toOne, toTwo); // nowhere to go for a while
                        };
                    boolean refuse = proxies.size() == 2 || chaos.nextBoolean();
                    for (CuttableProxy proxy : proxies) {
                      proxy.block(refuse);
                      proxy.cut();
                    }
                    if (refuse) {
                      Thread.sleep(500 + chaos.nextInt(1500)); // clients elsewhere, or waiting
                      proxies.forEach(proxy -> proxy.block(false));
                    }
                  }
                }));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "NatsShapedClientsMovingTest %s: %d writes committed, %d + %d connections; resumes"
                + " %.0f (%.0f from the stream), snapshots %.0f%n",
            kind,
            committed.get(),
            toOne.connections(),
            toTwo.connections(),
            one.metrics().resumesServed() + two.metrics().resumesServed(),
            one.metrics().resumesFromStream() + two.metrics().resumesFromStream(),
            one.metrics().snapshotsServed() + two.metrics().snapshotsServed());
        for (TablecastClient c : clients) {
          c.sync(NatsScaleOutTest.CONVERGE);
        }
        for (int i = 0; i < mirrors.size(); i++) {
          OrdersWorkload.Shaped s = shapes.get(i);
          assertThat(OrdersWorkload.contents(mirrors.get(i)))
              .as("shaped %s (seed %d)", s.shape(), SEED)
              .isEqualTo(OrdersWorkload.selected(p, s.query()));
          assertThat(mirrors.get(i).staleReason()).isNull();
        }
      } finally {
        clients.forEach(TablecastClient::close);
      }
    }
  }

  /**
   * An edge server whose resume buffer holds only the last 50 batches: older positions resume from
   * the stream.
   */
  private static TablecastServer serve(NatsServerProcess n, Pipeline p, String name)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .set("nats", NatsScaleOutTest.nats(n, p))
            .set("resume_buffer.batches", 50)
            .build());
  }
}
