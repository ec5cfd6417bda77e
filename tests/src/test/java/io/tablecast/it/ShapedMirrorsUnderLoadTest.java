package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
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
 * Client-chosen shapes under concurrent writers, for {@code tablecast.soak.seconds} (8 s) with the
 * random choices of {@code tablecast.seed} (2): {@code customers (id, region)} and {@code orders
 * (id, customer_id, total)} written by three threads (single statements and transactions of two to
 * four, some rolled back: regions, owners and totals changed, rows inserted and deleted, primary
 * keys changed), while one client's connection is cut every 0.3-1.5 s (it resumes) and clients with
 * the same shapes join. Then each shaped mirror, on the client that stayed and on the cut one,
 * equals the {@code SELECT} with the same filter, and reconciliation repaired nothing.
 */
class ShapedMirrorsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shapedMirrorsEqualTheirSelectAfterConcurrentWritesAndCutConnections(Kind kind)
      throws Exception {
    System.out.printf("ShapedMirrorsUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
            Pipeline.start(
                kind, "shape_load", ShapedMirrorEndToEndTest.ordersDdl(), "customers", "orders");
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port())) {
      List<OrdersWorkload.Shaped> shapes = OrdersWorkload.shapes(p);
      List<TablecastClient> clients = new ArrayList<>(); // one a shape: one shape a table each
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      try {
        mirrors.addAll(mirrorsOf("steady", p.address(), shapes, clients));
        mirrors.addAll(mirrorsOf("cut", proxy.address(), shapes, clients));
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicLong committed = new AtomicLong();
        threads.addAll(OrdersWorkload.writers(p, SEED, stop, committed, errors));
        Random cuts = new Random(SEED + 7);
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  while (!stop.get()) {
                    Thread.sleep(300 + cuts.nextInt(1200)); // pacing between cuts
                    proxy.cut();
                  }
                }));
        threads.forEach(Thread::start);
        long end = System.currentTimeMillis() + SECONDS * 1000;
        Random r = new Random(SEED + 3);
        for (int round = 0; System.currentTimeMillis() < end; round++) {
          Thread.sleep(1000 + r.nextInt(2000)); // pacing between joins
          List<TablecastClient> joining = new ArrayList<>();
          mirrorsOf("joining-" + round, p.address(), shapes, joining);
          joining.forEach(TablecastClient::close);
        }
        stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        assertThat(errors).isEmpty();
        System.out.printf(
            "ShapedMirrorsUnderLoadTest %s: %d writes committed, %d connections through the proxy%n",
            kind, committed.get(), proxy.connections());
        for (TablecastClient c : clients) {
          c.sync(Duration.ofSeconds(30));
        }
        for (int i = 0; i < mirrors.size(); i++) {
          OrdersWorkload.Shaped s = shapes.get(i % shapes.size());
          assertThat(OrdersWorkload.contents(mirrors.get(i)))
              .as("%s shaped %s (seed %d)", i < shapes.size() ? "steady" : "cut", s.shape(), SEED)
              .isEqualTo(OrdersWorkload.selected(p, s.query()));
          assertThat(mirrors.get(i).staleReason()).isNull();
        }
      } finally {
        clients.forEach(TablecastClient::close);
      }
    }
  }

  /** A client at {@code address} for each shape (added to {@code clients}), its mirror ready. */
  private static List<TableMirror<Map<String, Object>>> mirrorsOf(
      String name,
      String address,
      List<OrdersWorkload.Shaped> shapes,
      List<TablecastClient> clients)
      throws InterruptedException {
    List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
    for (OrdersWorkload.Shaped s : shapes) {
      TablecastClient client = NatsScaleOutTest.client(name + "-" + mirrors.size(), address);
      clients.add(client);
      TableMirror<Map<String, Object>> m = client.mirror(s.table(), s.shape());
      assertThat(m.awaitReady(Duration.ofSeconds(30))).as("ready: " + s.shape()).isTrue();
      mirrors.add(m);
    }
    return mirrors;
  }
}
