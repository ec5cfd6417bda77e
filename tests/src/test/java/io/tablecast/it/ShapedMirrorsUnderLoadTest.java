package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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
 * Client-chosen shapes under concurrent writers, for {@code tablecast.soak.seconds} (10 s) with the
 * random choices of {@code tablecast.seed} (2): {@code customers (id, region)} and {@code orders
 * (id, customer_id, total)} written by three threads (single statements and transactions of two to
 * four, some rolled back: regions, owners and totals changed, rows inserted and deleted, primary
 * keys changed), while one client's connection is cut every 0.3-1.5 s (it resumes) and clients with
 * the same shapes join. Then each shaped mirror, on the client that stayed and on the cut one,
 * equals the {@code SELECT} with the same filter, and reconciliation repaired nothing.
 */
class ShapedMirrorsUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 10);
  private static final String[] REGIONS = {"eu", "us", "apac", null};

  /** A shape, and the query that selects the same rows (its key, then the one column it holds). */
  private record Shaped(String table, MirrorShape shape, String query) {}

  private static List<Shaped> shapes(Pipeline p) {
    String customers = p.db.table("customers");
    String orders = p.db.table("orders");
    String ofEu = "customer_id IN (SELECT id FROM " + customers + " WHERE region = 'eu')";
    String cheap = "total < 150 AND customer_id IS NOT NULL";
    String regions = "region IN ('eu', 'us') OR region IS NULL";
    return List.of(
        new Shaped(
            orders,
            MirrorShape.rows(ofEu.replace("'eu'", "?"), "eu"),
            "SELECT id, total FROM " + orders + " WHERE " + ofEu),
        new Shaped(
            orders,
            MirrorShape.rows(cheap).columns("total"),
            "SELECT id, total FROM " + orders + " WHERE " + cheap),
        new Shaped(
            customers,
            MirrorShape.rows(regions),
            "SELECT id, region FROM " + customers + " WHERE " + regions));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void shapedMirrorsEqualTheirSelectAfterConcurrentWritesAndCutConnections(Kind kind)
      throws Exception {
    System.out.printf("ShapedMirrorsUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
            Pipeline.start(
                kind, "shape_load", ShapedMirrorEndToEndTest.ordersDdl(), "customers", "orders");
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port())) {
      List<Shaped> shapes = shapes(p);
      List<TablecastClient> clients = new ArrayList<>(); // one a shape: one shape a table each
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      try {
        mirrors.addAll(mirrorsOf("steady", p.address(), shapes, clients));
        mirrors.addAll(mirrorsOf("cut", proxy.address(), shapes, clients));
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicLong committed = new AtomicLong();
        for (int w = 0; w < 3; w++) {
          Random r = new Random(SEED * 31 + w);
          threads.add(UnderLoad.thread(errors, () -> write(p, r, stop, committed)));
        }
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
          Shaped s = shapes.get(i % shapes.size());
          assertThat(contents(mirrors.get(i)))
              .as("%s shaped %s (seed %d)", i < shapes.size() ? "steady" : "cut", s.shape(), SEED)
              .isEqualTo(selected(p, s.query()));
          assertThat(mirrors.get(i).staleReason()).isNull();
        }
      } finally {
        clients.forEach(TablecastClient::close);
      }
    }
  }

  /** A client at {@code address} for each shape (added to {@code clients}), its mirror ready. */
  private static List<TableMirror<Map<String, Object>>> mirrorsOf(
      String name, String address, List<Shaped> shapes, List<TablecastClient> clients)
      throws InterruptedException {
    List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
    for (Shaped s : shapes) {
      TablecastClient client = NatsScaleOutTest.client(name + "-" + mirrors.size(), address);
      clients.add(client);
      TableMirror<Map<String, Object>> m = client.mirror(s.table(), s.shape());
      assertThat(m.awaitReady(Duration.ofSeconds(30))).as("ready: " + s.shape()).isTrue();
      mirrors.add(m);
    }
    return mirrors;
  }

  /** Rows and transactions at random until {@code stop}. */
  private static void write(Pipeline p, Random r, AtomicBoolean stop, AtomicLong committed)
      throws Exception {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      while (!stop.get()) {
        int statements = r.nextInt(3) == 0 ? 2 + r.nextInt(3) : 1;
        c.setAutoCommit(statements == 1);
        try {
          for (int i = 0; i < statements; i++) {
            s.executeUpdate(statement(r));
          }
          if (statements > 1 && r.nextInt(4) == 0) {
            c.rollback();
          } else {
            if (statements > 1) {
              c.commit();
            }
            committed.incrementAndGet();
          }
        } catch (SQLException duplicateKeyOrDeadlock) {
          if (statements > 1) {
            c.rollback();
          }
        }
        Thread.sleep(r.nextInt(3)); // pacing only
      }
    }
  }

  private static String statement(Random r) {
    int customer = 1 + r.nextInt(45);
    int order = 1 + r.nextInt(320);
    String region = REGIONS[r.nextInt(REGIONS.length)];
    return switch (r.nextInt(9)) {
      case 0, 1 ->
          "UPDATE customers SET region = "
              + (region == null ? "NULL" : "'" + region + "'")
              + " WHERE id = "
              + customer;
      case 2 -> "UPDATE orders SET customer_id = " + customer + " WHERE id = " + order;
      case 3 -> "UPDATE orders SET total = " + r.nextInt(300) + ".25 WHERE id = " + order;
      case 4 -> "INSERT INTO orders VALUES (" + order + ", " + customer + ", 99.00)";
      case 5 -> "DELETE FROM orders WHERE id = " + order;
      case 6 -> "INSERT INTO customers VALUES (" + customer + ", 'eu')";
      case 7 -> "DELETE FROM customers WHERE id = " + customer;
      default -> // a primary key changed, back and forth
          r.nextBoolean()
              ? "UPDATE orders SET id = id + 1000 WHERE id = " + order
              : "UPDATE orders SET id = id - 1000 WHERE id = " + (order + 1000);
    };
  }

  /** Key → the one other column the shape's query selects, from the mirror. */
  private static Map<Long, String> contents(TableMirror<Map<String, Object>> m) {
    Map<Long, String> out = new TreeMap<>();
    for (Map<String, Object> row : m.rows()) {
      Object v = row.containsKey("total") ? row.get("total") : row.get("region");
      out.put(((Number) row.get("id")).longValue(), v == null ? null : canonical(v.toString()));
    }
    return out;
  }

  /** Key → the second column, from the database. */
  private static Map<Long, String> selected(Pipeline p, String query) throws SQLException {
    Map<Long, String> out = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        String v = rs.getString(2);
        out.put(rs.getLong(1), v == null ? null : canonical(v));
      }
    }
    return out;
  }

  /** A decimal's plain text without trailing zeros; any other text as it is. */
  private static String canonical(String v) {
    try {
      return new BigDecimal(v).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException notANumber) {
      return v;
    }
  }
}
