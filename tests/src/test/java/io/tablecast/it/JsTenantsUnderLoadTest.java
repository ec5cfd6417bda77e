package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.auth.RowFilter;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.charset.StandardCharsets;
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
 * Tenants of one table in Node, each by the {@code tenant} claim of its JWT ({@code auth.jwt} with
 * {@code default_policy: row_filter: "tenant = <claim:tenant>"}), under {@link
 * RowFilterUnderLoadTest}'s writers moving rows between tenants, for {@code tablecast.soak.seconds}
 * (8 s) with the random choices of {@code tablecast.seed} (2): four Node clients ({@code
 * tests/src/test/node/tenant-mirror.mjs}), tenants 1 and 2 of {@code orders} and of {@code
 * customers}, the claim a number for one and a string for the other, behind a proxy that cuts them
 * every 0.3-1.5 s and one time in six restarts the server first. Each client's token is a function,
 * asked at each connection for a token the server takes for five seconds only, so sessions outlive
 * their tokens and reconnects need fresh ones. Then each Node mirror equals its tenant's {@code
 * SELECT}, is not stale, and never heard a row of the other tenant; no server repaired a row.
 */
class JsTenantsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "a-test-secret-of-at-least-32-bytes!!";

  /** A Node client's table, its tenant claim as JSON, and the column beside the key it checks. */
  private record Tenant(String table, String claim, String column) {
    int tenant() {
      return Integer.parseInt(claim.replace("\"", ""));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void eachTenantsNodeMirrorHoldsItsRowsOnlyThroughWritesCutsRestartsAndExpiringTokens(Kind kind)
      throws Exception {
    System.out.printf("JsTenantsUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    List<Tenant> tenants =
        List.of(
            new Tenant("orders", "1", "total"),
            new Tenant("orders", "\"2\"", "total"),
            new Tenant("customers", "\"1\"", "region"),
            new Tenant("customers", "2", "region"));
    try (Pipeline p =
        Pipeline.create(kind, "js_tenants", RowFilterUnderLoadTest.ddl(), "customers", "orders")) {
      startServer(p);
      List<NodeScript> nodes = new ArrayList<>();
      try (CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", p.server().port())) {
        for (Tenant t : tenants) {
          NodeScript node =
              NodeScript.start(
                  "tenant-mirror.mjs",
                  "ws://" + proxy.address() + "/ws",
                  p.db.table(t.table()),
                  SECRET,
                  t.claim(),
                  "5000");
          nodes.add(node);
          assertThat(node.next()).as("the Node client of %s", t).isEqualTo("READY");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads =
            UnderLoad.writers(
                p, SEED, 3, false, stop, committed, errors, RowFilterUnderLoadTest::statement);
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "JsTenantsUnderLoadTest %s: %d writes committed, %d connections through the proxy%n",
            kind, committed.get(), proxy.connections());
        for (int i = 0; i < nodes.size(); i++) {
          Tenant t = tenants.get(i);
          nodes.get(i).send("SYNC");
          String answer = nodes.get(i).next();
          assertThat(answer)
              .as("the Node client of %s after sync", t)
              .isNotNull()
              .doesNotStartWith("FAILED");
          JsonNode state = JSON.readTree(answer);
          assertThat(state.get("stale").isNull()).as("stale: %s", state.get("stale")).isTrue();
          assertThat(state.get("foreign").asInt()).as("rows of another tenant heard").isZero();
          assertThat(state.get("tokens").asInt()).as("tokens asked for").isGreaterThan(1);
          assertThat(
                  UnderLoad.differences(
                      rows(state.get("rows"), t.column()),
                      "held",
                      OrdersWorkload.selected(
                          p,
                          "SELECT id, "
                              + t.column()
                              + " FROM "
                              + t.table()
                              + " WHERE tenant = "
                              + t.tenant()),
                      "selected"))
              .as("the Node mirror of %s (seed %d)", t, SEED)
              .isEmpty();
        }
      } finally {
        for (NodeScript node : nodes) {
          node.close();
        }
      }
    }
  }

  private static void startServer(Pipeline p) {
    // reconciliation on: each server's stop fails the test if it repaired a row
    ServerSetups.withTokens(
        p,
        SECRET.getBytes(StandardCharsets.UTF_8),
        new AccessPolicy(null, RowFilter.parse("tenant = <claim:tenant>"), null));
  }

  /** Key → {@code column}'s value, as {@link OrdersWorkload#selected} reads the database. */
  private static Map<Long, String> rows(JsonNode rows, String column) {
    Map<Long, String> out = new TreeMap<>();
    for (JsonNode row : rows) {
      JsonNode v = row.get(column);
      out.put(
          row.get("id").asLong(),
          v == null || v.isNull() ? null : OrdersWorkload.canonical(v.asText()));
    }
    return out;
  }
}
