package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.NearCache;
import io.tablecast.client.NearCacheOptions;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Near caches against a real server, both databases: readers whose bounded cache keeps evicting and
 * reloading race a writer that keeps updating the same hot rows, and no reader ever sees a row's
 * version go back (a load never installs a row older than one applied); after {@code sync} every
 * row the cache gives equals the table, rows deleted and inserted meanwhile included. Prints hit
 * and miss latency and what batching misses saves (the figures of docs/BENCHMARKS.md).
 */
class NearCacheEndToEndTest {
  private static final int ROWS = 2_000;
  private static final int HOT = 200;
  private static final int UPDATES = Integer.getInteger("tablecast.near.updates", 3_000);

  /** A typed row of {@code items}. */
  record Item(long id, long version, String name) {}

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE items (id int PRIMARY KEY, version bigint NOT NULL, name varchar(40))");
    StringBuilder insert = new StringBuilder("INSERT INTO items VALUES ");
    for (int id = 1; id <= ROWS; id++) {
      insert.append(id > 1 ? "," : "").append("(").append(id).append(", 0, 'item ").append(id);
      insert.append("')");
    }
    ddl.add(insert.toString());
    return ddl;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void loadsRacingWritesNeverGoBackAndTheCacheEndsEqualToTheTable(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "near", ddl(), "items")) {
      String table = p.db.table("items");
      TablecastClient client = p.client("near");
      NearCache<Item> near =
          client.nearCache(table, Item.class, NearCacheOptions.maximumRows(HOT / 4));
      assertThat(near.get(ROWS + 1)).as("no such row").isNull();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<String> wentBack = java.util.Collections.synchronizedList(new ArrayList<>());
      ExecutorService readers = Executors.newFixedThreadPool(2);
      List<Future<?>> running = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        int seed = r;
        running.add(
            readers.submit(
                () -> {
                  Random random = new Random(seed);
                  long[] seen = new long[HOT + 1];
                  while (!stop.get()) {
                    int id = 1 + random.nextInt(HOT);
                    Item item = near.get(id);
                    if (item.version() < seen[id] && wentBack.size() < 10) {
                      wentBack.add("id " + id + ": " + seen[id] + " then " + item.version());
                    }
                    seen[id] = Math.max(seen[id], item.version());
                    reads.incrementAndGet();
                  }
                  return null;
                }));
      }
      try (Connection c = p.db.connect();
          PreparedStatement u =
              c.prepareStatement("UPDATE " + table + " SET version = version + 1 WHERE id = ?")) {
        Random random = new Random(42);
        for (int i = 0; i < UPDATES; i++) {
          u.setInt(1, 1 + random.nextInt(HOT));
          u.executeUpdate();
        }
      } finally {
        stop.set(true);
        for (Future<?> f : running) {
          f.get();
        }
        readers.shutdown();
      }
      assertThat(wentBack).as("a row's version went back for a reader").isEmpty();
      p.sql(
          "DELETE FROM " + table + " WHERE id = 3",
          "INSERT INTO " + table + " VALUES (" + (ROWS + 1) + ", 9, 'new')");
      client.sync(Duration.ofSeconds(30));
      Map<Long, Long> versions = versions(p, table);
      for (long id = 1; id <= HOT; id++) {
        Item item = near.get(id);
        if (id == 3) {
          assertThat(item).as("deleted row 3").isNull();
        } else {
          assertThat(item.version())
              .as("version of row %d after sync", id)
              .isEqualTo(versions.get(id));
        }
      }
      assertThat(near.get(ROWS + 1))
          .as("the row inserted after its absence was held")
          .isEqualTo(new Item(ROWS + 1, 9, "new"));
      assertThat(near.stats().evictionCount()).as("the bound held").isPositive();
      System.out.printf(
          Locale.ROOT,
          "NearCacheEndToEndTest %s: %d reads by 2 readers racing %d updates of %d hot rows,"
              + " cache of %d rows: hit rate %.2f, %d loads, %d evictions%n",
          kind,
          reads.get(),
          UPDATES,
          HOT,
          HOT / 4,
          near.stats().hitRate(),
          near.stats().loadCount(),
          near.stats().evictionCount());
      latencies(kind, p, table);
    }
  }

  private static Map<Long, Long> versions(Pipeline p, String table) throws Exception {
    Map<Long, Long> out = new HashMap<>();
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, version FROM " + table)) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getLong(2));
      }
    }
    return out;
  }

  /**
   * Hit and miss latency, and 1,000 misses loaded one round trip at a time against the same misses
   * issued from 8 threads (grouped while a request is in flight; and with a 1 ms batch window) and
   * as one getAll.
   */
  private static void latencies(Kind kind, Pipeline p, String table) throws Exception {
    TablecastClient client = p.client("near-single");
    NearCache<Map<String, Object>> single =
        client.nearCache(table, NearCacheOptions.maximumRows(ROWS));
    long[] miss = new long[500];
    for (int i = 0; i < miss.length; i++) {
      long t0 = System.nanoTime();
      assertThat(single.get(1_001 + i)).isNotNull();
      miss[i] = System.nanoTime() - t0;
    }
    long[] hit = new long[500];
    long sink = 0;
    for (int round = 0; round < 200; round++) { // warm
      for (int i = 0; i < hit.length; i++) {
        sink += single.get(1_001 + i).size();
      }
    }
    for (int i = 0; i < hit.length; i++) {
      long t0 = System.nanoTime();
      sink += single.get(1_001 + i).size();
      hit[i] = System.nanoTime() - t0;
    }
    Arrays.sort(miss);
    Arrays.sort(hit);
    long oneByOne =
        timeLoads(
            () -> {
              for (int id = 1; id <= 1_000; id++) {
                single.get(id);
              }
            });
    long together =
        fromThreads(client.nearCache(table, Item.class, NearCacheOptions.maximumRows(ROWS)));
    long windowed =
        fromThreads(
            p.client("near-window")
                .nearCache(
                    table,
                    Item.class,
                    NearCacheOptions.maximumRows(ROWS).batchWindow(Duration.ofMillis(1))));
    List<Integer> keys = new ArrayList<>();
    for (int id = 1_001; id <= 2_000; id++) {
      keys.add(id);
    }
    NearCache<Map<String, Object>> bulk =
        p.client("near-bulk").nearCache(table, NearCacheOptions.maximumRows(ROWS + 1));
    long getAll = timeLoads(() -> assertThat(bulk.getAll(keys)).hasSize(1_000));
    System.out.printf(
        Locale.ROOT,
        "NearCacheEndToEndTest %s latency: hit p50 %d ns, p99 %d ns; miss (one key, one round trip)"
            + " p50 %.1f us, p99 %.1f us; 1,000 misses one at a time %.1f ms, from 8 threads"
            + " %.1f ms (with a 1 ms window %.1f ms), as one getAll %.1f ms (sink %d)%n",
        kind,
        hit[hit.length / 2],
        hit[hit.length * 99 / 100],
        miss[miss.length / 2] / 1e3,
        miss[miss.length * 99 / 100] / 1e3,
        oneByOne / 1e6,
        together / 1e6,
        windowed / 1e6,
        getAll / 1e6,
        sink);
  }

  /** How long 8 threads take to read 1,000 rows the cache does not hold. */
  private static long fromThreads(NearCache<Item> near) {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      return timeLoads(
          () -> {
            List<CompletableFuture<Item>> all = new ArrayList<>();
            for (int id = 1_001; id <= 2_000; id++) {
              int key = id;
              all.add(CompletableFuture.supplyAsync(() -> near.get(key), threads));
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).join();
          });
    } finally {
      threads.shutdown();
    }
  }

  private static long timeLoads(Runnable loads) {
    long t0 = System.nanoTime();
    loads.run();
    return System.nanoTime() - t0;
  }
}
