package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.IndexDefinition;
import io.tablecast.client.MirrorIndex;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Secondary indexes of mirrors end to end: while writers move rows between regions, statuses and
 * totals (single statements, multi-row and rolled-back transactions, inserts and deletes, NULLs),
 * and the client's connection is cut every 0.3-1.5 s and the server now and then restarted (the
 * mirrors resume, or swap to a new snapshot with their indexes rebuilt), readers find under each
 * key only rows that have it; once writes stop, every lookup of a generic mirror's indexes (one
 * column, two columns, a sorted range) and of a typed mirror's index equals {@code SELECT id ...
 * WHERE col = ?} of the table; on PostgreSQL, after a {@code TRUNCATE} and new rows in one
 * transaction too.
 */
class IndexedMirrorEndToEndTest {
  private static final long SEED = Long.getLong("tablecast.seed", 20261126L);
  private static final long SECONDS = Long.getLong("tablecast.index.seconds", 8L);
  private static final int WRITERS = 3;
  private static final int MAX_ID = 400;
  private static final List<String> REGIONS = Arrays.asList("EU", "US", "APAC", null);
  private static final List<String> STATUSES = List.of("open", "paid", "sent");

  /** A typed row: the columns it reads. */
  record Order(long id, String region, String status, Integer total) {}

  private static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add(
        "CREATE TABLE orders (id int PRIMARY KEY, region varchar(8), "
            + "status varchar(8) NOT NULL, total int NOT NULL)");
    for (int id = 1; id <= MAX_ID / 2; id++) {
      ddl.add(
          "INSERT INTO orders VALUES ("
              + id
              + ", "
              + (id % 4 == 3 ? "NULL" : "'" + REGIONS.get(id % 4) + "'")
              + ", '"
              + STATUSES.get(id % 3)
              + "', "
              + id * 7 % 1000
              + ")");
    }
    return ddl;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyIndexLookupEqualsTheSelectAfterAConcurrentLoad(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "indexed", ddl(), "orders");
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port());
        TablecastClient client = NatsScaleOutTest.client("indexed", proxy.address())) {
      String table = p.db.table("orders");
      TableMirror<Map<String, Object>> m =
          client.mirror(
              table,
              List.of(
                  IndexDefinition.hash("by_region", "region"),
                  IndexDefinition.hash("by_region_status", "region", "status"),
                  IndexDefinition.sorted("by_total", "total")));
      TableMirror<Order> typed =
          client.mirror(
              table,
              Order.class,
              List.of(IndexDefinition.hash("by_status", Order::status).columns("status")));
      assertThat(m.awaitReady(Pipeline.READY)).isTrue();
      assertThat(typed.awaitReady(Pipeline.READY)).isTrue();

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<String> wrong = new CopyOnWriteArrayList<>();
      Thread reader = new Thread(() -> readWhileWritten(m, stop, reads, wrong), "index-reader");
      reader.start();
      List<Thread> writers = new ArrayList<>();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      AtomicBoolean faultsStop = new AtomicBoolean();
      Thread faults = // a resumed stream, or after a server restart a snapshot the rows swap to
          UnderLoad.thread(
              failures,
              UnderLoad.cutsAndRestarts(
                  p, proxy, new Random(SEED + 5), faultsStop, () -> p.startServer()));
      faults.start();
      long until = System.nanoTime() + Duration.ofSeconds(SECONDS).toNanos();
      for (int w = 0; w < WRITERS; w++) {
        Random random = new Random(SEED + w);
        Thread t =
            new Thread(
                () -> {
                  try (Connection c = p.db.connect()) {
                    while (System.nanoTime() < until) {
                      write(c, random);
                    }
                  } catch (SQLException | RuntimeException e) {
                    failures.add(e);
                  }
                },
                "writer-" + w);
        t.start();
        writers.add(t);
      }
      for (Thread t : writers) {
        t.join();
      }
      faultsStop.set(true);
      faults.join();
      assertThat(failures).isEmpty();
      client.sync(Duration.ofSeconds(30));

      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .untilAsserted(() -> assertIndexesEqualSelects(p, m, typed));
      stop.set(true);
      reader.join();
      assertThat(wrong).isEmpty();
      assertThat(reads.get()).isPositive();

      if (kind == Kind.POSTGRESQL) { // a TRUNCATE reaches mirrors as one DELETE per row
        p.transaction(
            "TRUNCATE orders",
            "INSERT INTO orders VALUES (1, 'EU', 'open', 950), (2, NULL, 'paid', 120)");
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> assertIndexesEqualSelects(p, m, typed));
        assertThat(m.size()).isEqualTo(2);
      }
    }
  }

  /** One write: a statement, or a transaction of several (one in ten rolled back). */
  private static void write(Connection c, Random random) throws SQLException {
    int statements = 1 + random.nextInt(4);
    boolean rollback = random.nextInt(10) == 0;
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      for (int i = 0; i < statements; i++) {
        int id = 1 + random.nextInt(MAX_ID);
        String region = REGIONS.get(random.nextInt(REGIONS.size()));
        String regionSql = region == null ? "NULL" : "'" + region + "'";
        String status = STATUSES.get(random.nextInt(STATUSES.size()));
        int total = random.nextInt(1000);
        switch (random.nextInt(4)) {
          case 0 -> s.executeUpdate("DELETE FROM orders WHERE id = " + id);
          case 1 -> {
            s.executeUpdate("DELETE FROM orders WHERE id = " + id);
            s.executeUpdate(
                "INSERT INTO orders VALUES ("
                    + id
                    + ", "
                    + regionSql
                    + ", '"
                    + status
                    + "', "
                    + total
                    + ")");
          }
          default ->
              s.executeUpdate(
                  "UPDATE orders SET region = "
                      + regionSql
                      + ", status = '"
                      + status
                      + "', total = "
                      + total
                      + " WHERE id = "
                      + id);
        }
      }
      if (rollback) {
        c.rollback();
      } else {
        c.commit();
      }
    } catch (SQLException e) {
      c.rollback(); // a deadlock between writers: that transaction is simply not made
    }
  }

  /** While written: every row a lookup returns has the key looked up. */
  private static void readWhileWritten(
      TableMirror<Map<String, Object>> m,
      AtomicBoolean stop,
      AtomicLong reads,
      List<String> wrong) {
    MirrorIndex<Map<String, Object>> byRegion = m.index("by_region");
    MirrorIndex<Map<String, Object>> byTotal = m.index("by_total");
    while (!stop.get() && wrong.size() < 10) {
      for (String region : REGIONS) {
        for (Map<String, Object> r : byRegion.get(region)) {
          if (!java.util.Objects.equals(r.get("region"), region)) {
            wrong.add("by_region.get(" + region + ") returned " + r);
          }
        }
      }
      long last = -1;
      for (Map<String, Object> r : byTotal.range(100, true, 500, false)) {
        long total = ((Number) r.get("total")).longValue();
        if (total < 100 || total >= 500 || total < last) {
          wrong.add("by_total.range(100, 500) returned " + r + " after a total of " + last);
        }
        last = total;
      }
      reads.incrementAndGet();
    }
  }

  private static void assertIndexesEqualSelects(
      Pipeline p, TableMirror<Map<String, Object>> m, TableMirror<Order> typed)
      throws SQLException {
    try (Connection c = p.db.connect()) {
      for (String region : REGIONS) {
        assertThat(ids(m.index("by_region").get(region)))
            .as("by_region %s", region)
            .isEqualTo(
                select(
                    c,
                    region == null ? "region IS NULL" : "region = ?",
                    region == null ? List.of() : List.of(region)));
        for (String status : STATUSES) {
          List<Object> key = Arrays.asList(region, status);
          assertThat(ids(m.index("by_region_status").get(key)))
              .as("by_region_status %s", key)
              .isEqualTo(
                  select(
                      c,
                      (region == null ? "region IS NULL" : "region = ?") + " AND status = ?",
                      region == null ? List.of(status) : List.of(region, status)));
        }
      }
      for (String status : STATUSES) {
        assertThat(
                typed.index("by_status").get(status).stream()
                    .map(Order::id)
                    .collect(java.util.stream.Collectors.toSet()))
            .as("typed by_status %s", status)
            .isEqualTo(select(c, "status = ?", List.of(status)));
      }
      assertThat(ids(m.index("by_total").range(100, true, 500, false)))
          .as("by_total [100, 500)")
          .isEqualTo(select(c, "total >= ? AND total < ?", List.of(100, 500)));
      assertThat(
              ids(
                  m.query()
                      .where("by_region", "EU")
                      .whereRange("by_total", 900, true, null, true)
                      .list()))
          .as("EU and total >= 900")
          .isEqualTo(select(c, "region = ? AND total >= ?", List.of("EU", 900)));
    }
  }

  private static Set<Long> ids(List<Map<String, Object>> rows) {
    Set<Long> out = new HashSet<>();
    for (Map<String, Object> r : rows) {
      out.add(((Number) r.get("id")).longValue());
    }
    return out;
  }

  private static Set<Long> select(Connection c, String where, List<Object> params)
      throws SQLException {
    Set<Long> out = new HashSet<>();
    try (PreparedStatement s = c.prepareStatement("SELECT id FROM orders WHERE " + where)) {
      for (int i = 0; i < params.size(); i++) {
        s.setObject(i + 1, params.get(i));
      }
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }
}
