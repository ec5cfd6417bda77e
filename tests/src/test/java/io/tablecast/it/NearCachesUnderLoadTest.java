package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.NearCache;
import io.tablecast.client.NearCacheOptions;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Near caches under the writes of {@link OrdersWorkload}, for {@code tablecast.soak.seconds} (8 s)
 * with the random choices of {@code tablecast.seed} (2): two clients behind a proxy that cuts their
 * connections every 0.3-1.5 s, while the server restarts now and then (a new epoch: what they held
 * is dropped) and resumes from a 50-batch buffer otherwise, each with a near cache of the orders
 * (generic rows) and of the customers (typed rows), bounded far below the tables so that rows keep
 * being evicted and loaded again, read by four threads with {@code get}, {@code getAll} and {@code
 * getAsync} over every key the workload writes, primary keys changed back and forth included. Then
 * every key read from a near cache, the rows it holds and the absences it holds, equals the table.
 */
class NearCachesUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** A typed customer. */
  record Customer(long id, String region) {}

  /** The keys the workload writes: orders 1-320 and the same moved by 1000, customers 1-45. */
  private static final List<Object> ORDER_KEYS = new ArrayList<>();

  private static final List<Object> CUSTOMER_KEYS = new ArrayList<>();

  static {
    for (long id = 1; id <= 320; id++) {
      ORDER_KEYS.add(id);
      ORDER_KEYS.add(id + 1000);
    }
    for (long id = 1; id <= 45; id++) {
      CUSTOMER_KEYS.add(id);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void nearCachesReadWhileCutAndRestartedHoldOnlyWhatTheTablesHold(Kind kind) throws Exception {
    System.out.printf("NearCachesUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
        Pipeline.create(
            kind, "near_load", ShapedMirrorEndToEndTest.ordersDdl(), "customers", "orders")) {
      startServer(p);
      String orders = p.db.table("orders");
      String customers = p.db.table("customers");
      List<TablecastClient> clients = new ArrayList<>();
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      try (CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port())) {
        List<NearCache<Map<String, Object>>> orderCaches = new ArrayList<>();
        List<NearCache<Customer>> customerCaches = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
          TablecastClient client = NatsScaleOutTest.client("near-" + c, proxy.address());
          clients.add(client);
          orderCaches.add(client.nearCache(orders, NearCacheOptions.maximumRows(80)));
          customerCaches.add(
              client.nearCache(customers, Customer.class, NearCacheOptions.maximumRows(15)));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        List<Thread> threads =
            new ArrayList<>(OrdersWorkload.writers(p, SEED, stop, committed, errors));
        for (int t = 0; t < 4; t++) {
          Random r = new Random(SEED * 13 + t);
          NearCache<Map<String, Object>> orderCache = orderCaches.get(t % 2);
          NearCache<Customer> customerCache = customerCaches.get(t % 2);
          threads.add(
              UnderLoad.thread(
                  errors,
                  () -> {
                    while (!stop.get()) {
                      if (r.nextInt(4) == 0) {
                        read(r, customerCache, reads);
                      } else {
                        read(r, orderCache, reads);
                      }
                    }
                  }));
        }
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "NearCachesUnderLoadTest %s: %d writes committed, %d reads, %d connections through the"
                + " proxy; order caches %s; customer caches %s%n",
            kind,
            committed.get(),
            reads.get(),
            proxy.connections(),
            orderCaches.stream().map(NearCache::stats).toList(),
            customerCaches.stream().map(NearCache::stats).toList());
        for (TablecastClient c : clients) {
          c.sync(WAIT);
        }
        Map<Object, String> orderRows = rows(p, "SELECT id, customer_id, total FROM " + orders, 3);
        Map<Object, String> customerRows = rows(p, "SELECT id, region FROM " + customers, 2);
        for (int c = 0; c < 2; c++) {
          assertThat(
                  UnderLoad.differences(
                      read(orderCaches.get(c), ORDER_KEYS, NearCachesUnderLoadTest::order),
                      "read",
                      expected(orderRows, ORDER_KEYS),
                      "in the table"))
              .as("orders read from near cache %d (seed %d)", c, SEED)
              .isEmpty();
          assertThat(
                  UnderLoad.differences(
                      read(customerCaches.get(c), CUSTOMER_KEYS, NearCachesUnderLoadTest::customer),
                      "read",
                      expected(customerRows, CUSTOMER_KEYS),
                      "in the table"))
              .as("customers read from near cache %d (seed %d)", c, SEED)
              .isEmpty();
          assertThat(orderCaches.get(c).staleReason()).isNull();
          assertThat(customerCaches.get(c).staleReason()).isNull();
        }
      } finally {
        clients.forEach(TablecastClient::close);
        assertThat(errors).as("what the threads threw").isEmpty();
      }
    }
  }

  private static void startServer(Pipeline p) {
    p.startServer(b -> b.set("resume_buffer.batches", 50));
  }

  /** One read of random keys, by one of the ways a near cache is read. */
  private static <V> void read(Random r, NearCache<V> cache, AtomicLong reads) throws Exception {
    List<Object> keys = cache.table().endsWith("orders") ? ORDER_KEYS : CUSTOMER_KEYS;
    Object key = keys.get(r.nextInt(keys.size()));
    try {
      switch (r.nextInt(3)) {
        case 0 -> cache.get(key);
        case 1 -> cache.getAll(List.of(key, keys.get(r.nextInt(keys.size()))));
        default -> cache.getAsync(key).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      reads.incrementAndGet();
    } catch (RuntimeException | ExecutionException | TimeoutException refusedWhileAway) {
      // a load whose connection was cut, or while the server restarts: the next read asks again
      Thread.sleep(20);
    }
  }

  /** Each key's row as the near cache gives it, in the form of {@link #rows}; absent ones left. */
  private static <V> Map<Object, String> read(
      NearCache<V> cache, List<Object> keys, Function<V, String> form) {
    Map<Object, String> out = new TreeMap<>();
    for (Object key : keys) {
      V row = cache.get(key);
      if (row != null) {
        out.put(key, form.apply(row));
      }
    }
    return out;
  }

  private static Map<Object, String> expected(Map<Object, String> table, List<Object> keys) {
    Map<Object, String> out = new TreeMap<>();
    for (Object key : keys) {
      if (table.containsKey(key)) {
        out.put(key, table.get(key));
      }
    }
    return out;
  }

  private static String order(Map<String, Object> row) {
    return row.get("customer_id")
        + "|"
        + OrdersWorkload.canonical(String.valueOf(row.get("total")));
  }

  private static String customer(Customer c) {
    return String.valueOf(c.region());
  }

  /** Key → the other {@code columns - 1} columns joined by {@code |}, from the database. */
  private static Map<Object, String> rows(Pipeline p, String query, int columns) throws Exception {
    Map<Object, String> out = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 2; i <= columns; i++) {
          String v = rs.getString(i);
          row.append(i > 2 ? "|" : "").append(v == null ? "null" : OrdersWorkload.canonical(v));
        }
        out.put(rs.getLong(1), row.toString());
      }
    }
    return out;
  }
}
