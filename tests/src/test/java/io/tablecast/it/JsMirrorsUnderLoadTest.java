package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.config.WriteBufferSettings;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The JavaScript client in Node under {@link OrdersWorkload}'s writes, for {@code
 * tablecast.soak.seconds} (8 s) with the random choices of {@code tablecast.seed} (2): four Node
 * clients ({@code tests/src/test/node/shaped-mirror.mjs}), the whole of {@code orders} ({@link
 * OrdersWorkload#wideDdl}) and each of the workload's shapes, behind a proxy that every 1-2.5 s
 * either cuts their WebSocket connections (they resume) or stops reading from the server for 0.3-3
 * s (their changes are coalesced, past 60 keys they are dropped as slow consumers). Then each Node
 * mirror equals its {@code SELECT}, and reconciliation repaired nothing.
 */
class JsMirrorsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @EnumSource(Kind.class)
  void nodeMirrorsEqualTheirSelectAfterCutsAndPausesUnderConcurrentWrites(Kind kind)
      throws Exception {
    System.out.printf("JsMirrorsUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
        Pipeline.create(kind, "js_load", OrdersWorkload.wideDdl(), "customers", "orders")) {
      p.startServer(
          b ->
              b.set("write_buffer", new WriteBufferSettings(32 << 10, 64 << 10))
                  .set("slow_consumer.coalesce_max_keys", 60));
      List<String[]> mirrored = new ArrayList<>(); // table, shape JSON, query
      String orders = p.db.table("orders");
      mirrored.add(new String[] {orders, "null", "SELECT id, total FROM " + orders});
      for (OrdersWorkload.Shaped s : OrdersWorkload.shapes(p)) {
        mirrored.add(new String[] {s.table(), shapeJson(s), s.query()});
      }
      List<NodeScript> nodes = new ArrayList<>();
      try (CuttableProxy proxy =
          CuttableProxy.raw("127.0.0.1", p.server().port()).readingSlowly()) {
        for (String[] m : mirrored) {
          NodeScript node =
              NodeScript.start("shaped-mirror.mjs", "ws://" + proxy.address() + "/ws", m[0], m[1]);
          nodes.add(node);
          assertThat(node.next()).as("the Node client's mirror of " + m[1]).isEqualTo("READY");
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
                    Thread.sleep(1000 + chaos.nextInt(1500)); // pacing between faults
                    if (chaos.nextBoolean()) {
                      proxy.cut();
                    } else {
                      proxy.pause(true);
                      Thread.sleep(300 + chaos.nextInt(2700)); // not reading
                      proxy.pause(false);
                    }
                  }
                }));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "JsMirrorsUnderLoadTest %s: %d writes committed, %d connections through the proxy;"
                + " %s%n",
            kind, committed.get(), proxy.connections(), UnderLoad.slowConsumerMeters(p));
        for (int i = 0; i < nodes.size(); i++) {
          nodes.get(i).send("SYNC");
          String answer = nodes.get(i).next();
          assertThat(answer)
              .as("the Node mirror of %s after sync", mirrored.get(i)[1])
              .isNotNull()
              .doesNotStartWith("FAILED");
          assertThat(rows(answer))
              .as("the Node mirror of %s (seed %d)", mirrored.get(i)[1], SEED)
              .isEqualTo(OrdersWorkload.selected(p, mirrored.get(i)[2]));
        }
      } finally {
        for (NodeScript node : nodes) {
          node.close();
        }
      }
    }
  }

  private static String shapeJson(OrdersWorkload.Shaped s) {
    Map<String, Object> shape = new TreeMap<>();
    shape.put("filter", s.shape().filter());
    shape.put("params", s.shape().params());
    if (s.shape().columns() != null) {
      shape.put("columns", s.shape().columns());
    }
    try {
      return JSON.writeValueAsString(shape);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Key → total or region, as {@link OrdersWorkload#contents} reads a Java mirror. */
  private static Map<Long, String> rows(String json) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (JsonNode row : JSON.readTree(json)) {
      JsonNode v = row.has("total") ? row.get("total") : row.get("region");
      out.put(
          row.get("id").asLong(),
          v == null || v.isNull() ? null : OrdersWorkload.canonical(v.asText()));
    }
    return out;
  }
}
