package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.config.WriteBufferSettings;
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
 * Clients that read slowly, under the writes of {@link OrdersWorkload}, for {@code
 * tablecast.soak.seconds} (8 s) with the random choices of {@code tablecast.seed} (2): behind a
 * proxy that stops reading from the server for 0.3-4 s every 0.3-1.5 s, a client with whole mirrors
 * of both tables ({@link OrdersWorkload#wideDdl}) and one client for each of its shapes. The
 * server's write buffer is small (64 KiB) so that their channels turn unwritable within a pause,
 * their changes are then coalesced per key, and past 60 keys they are dropped as slow consumers
 * (they resume or take a new snapshot). Then every mirror equals its table or its {@code SELECT},
 * and reconciliation repaired nothing.
 */
class SlowReadersUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsOfClientsThatReadSlowlyEqualTheirTablesAfterCoalescingAndDrops(Kind kind)
      throws Exception {
    System.out.printf("SlowReadersUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
        Pipeline.create(kind, "slow_load", OrdersWorkload.wideDdl(), "customers", "orders")) {
      p.startServer(
          b ->
              b.set("write_buffer", new WriteBufferSettings(32 << 10, 64 << 10))
                  .set("slow_consumer.coalesce_max_keys", 60));
      List<OrdersWorkload.Shaped> shapes = OrdersWorkload.shapes(p);
      List<TablecastClient> clients = new ArrayList<>();
      try (CuttableProxy proxy =
          new CuttableProxy("127.0.0.1", p.server().port()).readingSlowly()) {
        TablecastClient whole = NatsScaleOutTest.client("slow-whole", proxy.address());
        clients.add(whole);
        List<TableMirror<Map<String, Object>>> wholeMirrors =
            List.of(
                p.readyMirror(whole, "customers"),
                p.readyMirror(whole, "orders"),
                p.readyMirror(p.client("steady"), "orders"));
        List<TableMirror<Map<String, Object>>> shaped = new ArrayList<>();
        for (OrdersWorkload.Shaped s : shapes) {
          TablecastClient client =
              NatsScaleOutTest.client("slow-" + shaped.size(), proxy.address());
          clients.add(client);
          TableMirror<Map<String, Object>> m = client.mirror(s.table(), s.shape());
          assertThat(m.awaitReady(Duration.ofSeconds(30))).as("ready: " + s.shape()).isTrue();
          shaped.add(m);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        threads.addAll(OrdersWorkload.writers(p, SEED, stop, committed, errors));
        Random pauses = new Random(SEED + 7);
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  while (!stop.get()) {
                    Thread.sleep(300 + pauses.nextInt(1200)); // reading
                    proxy.pause(true);
                    Thread.sleep(300 + pauses.nextInt(3700)); // not reading
                    proxy.pause(false);
                  }
                }));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "SlowReadersUnderLoadTest %s: %d writes committed, %d connections through the proxy;"
                + " %s%n",
            kind, committed.get(), proxy.connections(), UnderLoad.slowConsumerMeters(p));
        for (TablecastClient c : clients) {
          c.sync(Duration.ofSeconds(30));
        }
        p.awaitMirrorEqualsTable(wholeMirrors.get(0), "customers");
        p.awaitMirrorEqualsTable(wholeMirrors.get(1), "orders");
        p.awaitMirrorEqualsTable(wholeMirrors.get(2), "orders");
        for (int i = 0; i < shaped.size(); i++) {
          OrdersWorkload.Shaped s = shapes.get(i);
          assertThat(OrdersWorkload.contents(shaped.get(i)))
              .as("shaped %s (seed %d)", s.shape(), SEED)
              .isEqualTo(OrdersWorkload.selected(p, s.query()));
        }
        for (TableMirror<Map<String, Object>> m : wholeMirrors) {
          assertThat(m.staleReason()).isNull();
        }
        for (TableMirror<Map<String, Object>> m : shaped) {
          assertThat(m.staleReason()).isNull();
        }
      } finally {
        clients.forEach(TablecastClient::close);
      }
    }
  }
}
