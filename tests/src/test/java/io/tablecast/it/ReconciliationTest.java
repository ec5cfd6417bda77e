package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Drift the row triggers do not capture: PostgreSQL TRUNCATE (statement trigger) and cascades,
 * MySQL/MariaDB TRUNCATE and ALTER TABLE (periodic reconciliation), and no false repairs.
 */
class ReconciliationTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private static final List<String> ITEMS =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL, qty int NOT NULL)",
          "INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");

  /** A server over the pipeline's schema with the given reconcile interval, and its own clients. */
  private static final class Server implements AutoCloseable {
    final TablecastServer server;
    final List<TablecastClient> clients = new ArrayList<>();

    Server(Pipeline p, Duration reconcile, String... tables) throws InterruptedException {
      this(p, reconcile, null, tables);
    }

    /** With {@code captureCheck} as its {@code capture_check_interval} (null: the default). */
    Server(Pipeline p, Duration reconcile, Duration captureCheck, String... tables)
        throws InterruptedException {
      List<String> qualified = new ArrayList<>();
      for (String t : tables) {
        qualified.add(p.db.table(t));
      }
      SourceConfig source =
          new SourceConfig(
              p.db.jdbcUrl(), null, null, qualified, true, null, null, reconcile, captureCheck);
      server =
          TablecastServer.start(
              ServerConfig.builder()
                  .set("server_name", "it-" + p.db.schema())
                  .listen("127.0.0.1", 0)
                  .source(source)
                  .build());
    }

    TableMirror<Map<String, Object>> mirror(Pipeline p, String table) throws InterruptedException {
      TablecastClient c =
          TablecastClient.builder()
              .servers("127.0.0.1:" + server.port())
              .clientName("reconcile-" + table)
              .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
              .build();
      clients.add(c);
      TableMirror<Map<String, Object>> m = c.mirror(p.db.table(table));
      assertThat(m.awaitReady(Pipeline.READY)).as("mirror of %s ready", table).isTrue();
      return m;
    }

    double repairs() {
      return server.metrics().reconcileRepairs();
    }

    @Override
    public void close() {
      clients.forEach(TablecastClient::close);
      server.close();
    }
  }

  @Test
  void postgresTruncateEmptiesMirrorsPromptlyThroughDeleteEvents() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "truncate_pg", ITEMS, "items");
        Server s = new Server(p, Duration.ZERO, "items")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      assertThat(m.size()).isEqualTo(3);
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);
      // Inside one transaction: an insert before, the truncate, an insert after, in that order.
      p.transaction(
          "INSERT INTO items VALUES (4, 'd', 4)",
          "TRUNCATE items",
          "INSERT INTO items VALUES (5, 'e', 5)");
      await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 6);
      assertThat(events)
          .extracting(ChangeEvent::op)
          .containsExactly(
              ChangeType.INSERT,
              ChangeType.DELETE,
              ChangeType.DELETE,
              ChangeType.DELETE,
              ChangeType.DELETE,
              ChangeType.INSERT);
      assertThat(m.size()).isEqualTo(1);
      assertThat(m.get(5)).containsEntry("name", "e");
      p.sql("TRUNCATE items");
      await().atMost(Duration.ofSeconds(10)).until(() -> m.size() == 0);
      p.sql("INSERT INTO items VALUES (7, 'g', 7)");
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(s.repairs()).isZero();
    }
  }

  /**
   * PostgreSQL's TRUNCATE is not MVCC-safe: a transaction whose snapshot predates its commit, and
   * which reads the table only after, finds it empty. The tail's poll took its snapshot, then
   * waited for the table behind a TRUNCATE (held back here by another session's lock); read in that
   * snapshot, the range would show every row gone before the TRUNCATE was in the batch: three false
   * repairs, and mirrors briefly empty, a state the table never had.
   */
  @Test
  void postgresTruncateCommittedWhileTheTailWaitsToReadARangeIsNoDrift() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "truncate_race", ITEMS, "items");
        Server s = new Server(p, Duration.ofMillis(100), "items")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      List<Integer> sizes = new CopyOnWriteArrayList<>();
      m.addListener(e -> sizes.add(m.size()));
      Thread truncate;
      try (Connection holder = p.db.connect();
          Statement st = holder.createStatement()) {
        holder.setAutoCommit(false);
        st.execute("LOCK TABLE " + p.db.table("items") + " IN ACCESS SHARE MODE");
        truncate =
            new Thread(
                () -> p.transaction("TRUNCATE items", "INSERT INTO items VALUES (9, 'z', 9)"),
                "truncate");
        truncate.start();
        // the TRUNCATE and then the tail's next range read wait for the holder's lock
        await()
            .atMost(Duration.ofSeconds(20))
            .alias("the TRUNCATE and the tail both waiting for the table's lock")
            .until(() -> lockWaiters(p) >= 2);
        holder.commit();
      }
      truncate.join(20_000);
      await().atMost(CONVERGE).until(() -> m.size() == 1 && m.get(9) != null);
      Thread.sleep(300); // a few more ranges read
      assertThat(sizes).as("mirror sizes after each change").doesNotContain(0);
      assertThat(s.repairs()).as("rows repaired without drift").isZero();
    }
  }

  private static int lockWaiters(Pipeline p) throws SQLException {
    try (Connection c = p.db.connect();
        Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND wait_event_type = 'Lock'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void postgresCascadesAndTruncateCascadeKeepParentAndChildMirrorsConverged() throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE parent (id int PRIMARY KEY, name text NOT NULL)",
            "CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent(id) ON DELETE CASCADE, note text)",
            "CREATE TABLE link (id int PRIMARY KEY, parent_id int REFERENCES parent(id) ON DELETE SET NULL)",
            "INSERT INTO parent VALUES (1, 'p1'), (2, 'p2'), (3, 'p3')",
            "INSERT INTO child VALUES (10, 1, 'a'), (11, 1, 'b'), (20, 2, 'c'), (30, 3, 'd')",
            "INSERT INTO link VALUES (100, 1), (200, 2), (300, 3)");
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "cascade_pg", ddl, "parent", "child", "link");
        Server s = new Server(p, Duration.ZERO, "parent", "child", "link")) {
      TableMirror<Map<String, Object>> parent = s.mirror(p, "parent");
      TableMirror<Map<String, Object>> child = s.mirror(p, "child");
      TableMirror<Map<String, Object>> link = s.mirror(p, "link");
      p.sql("DELETE FROM parent WHERE id = 1");
      p.awaitMirrorEqualsTable(parent, "parent");
      p.awaitMirrorEqualsTable(child, "child");
      p.awaitMirrorEqualsTable(link, "link");
      assertThat(child.get(10)).isNull();
      assertThat(link.get(100)).containsEntry("parent_id", null);
      // truncates child and link too: each fires its statement trigger
      p.sql("TRUNCATE parent CASCADE");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> parent.size() + child.size() + link.size() == 0);
      p.sql("INSERT INTO parent VALUES (4, 'p4')", "INSERT INTO child VALUES (40, 4, 'e')");
      p.awaitMirrorEqualsTable(parent, "parent");
      p.awaitMirrorEqualsTable(child, "child");
      p.awaitMirrorEqualsTable(link, "link");
    }
  }

  @Test
  void mysqlTruncateIsRepairedByReconciliation() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "my_truncate", ITEMS, "items");
        // no capture check, which would find the TRUNCATE too (the next test)
        Server s = new Server(p, Duration.ofMillis(500), Duration.ZERO, "items")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);
      p.sql("TRUNCATE TABLE items", "INSERT INTO items VALUES (9, 'z', 9)");
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> m.size() == 1 && m.get(9) != null);
      p.awaitMirrorEqualsTable(m, "items");
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> events.stream().filter(e -> e.op() == ChangeType.DELETE).count() == 3);
      assertThat(s.repairs()).isEqualTo(3.0);
    }
  }

  /**
   * A TRUNCATE fires no trigger on MySQL/MariaDB either, but gives the table a new InnoDB id: the
   * next capture check finds it and has the table re-read, a resync (no repair), long before a
   * reconciliation pass (an hour here) would.
   */
  @Test
  void mysqlTruncateIsReReadAtTheNextCaptureCheck() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "my_truncate_check", ITEMS, "items");
        Server s = new Server(p, Duration.ofHours(1), Duration.ofMillis(200), "items")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      p.sql("TRUNCATE TABLE items", "INSERT INTO items VALUES (9, 'z', 9)");
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> m.size() == 1 && m.get(9) != null);
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(s.repairs()).isZero();
      assertThat(s.server.metrics().resyncs()).isPositive();
    }
  }

  /**
   * An ALTER TABLE fires no trigger on MySQL/MariaDB: the table's next reconciliation pass sees the
   * new column in the catalog and has the table re-read whole, a resync (not drift: no repair).
   */
  @Test
  void mysqlAlterTableAddColumnReachesMirrorsAtTheNextReconciliationAsAResync() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "my_alter", ITEMS, "items");
        Server s = new Server(p, Duration.ofMillis(500), "items")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      p.sql("ALTER TABLE items ADD COLUMN color varchar(10) NOT NULL DEFAULT 'red'");
      await()
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> m.get(1) != null && "red".equals(m.get(1).get("color")));
      p.sql(
          "INSERT INTO items (id, name, qty, color) VALUES (4, 'd', 4, 'blue')",
          "UPDATE items SET color = 'green' WHERE id = 2");
      await()
          .atMost(CONVERGE)
          .until(
              () ->
                  m.get(4) != null
                      && "blue".equals(m.get(4).get("color"))
                      && "green".equals(m.get(2).get("color")));
      p.awaitMirrorEqualsTable(m, "items");
      double repaired = s.repairs();
      assertThat(repaired).isZero(); // the rows that gained the column came as a resync
      assertThat(s.server.metrics().registry().find("tablecast.resyncs").counters()).isNotEmpty();
      // A new client gets the new column in its snapshot.
      TableMirror<Map<String, Object>> fresh = s.mirror(p, "items");
      assertThat(fresh.get(3)).containsEntry("color", "red");
      Thread.sleep(
          1500); // a few more reconciliations: the key-only triggers capture the new column too
      assertThat(s.repairs()).isEqualTo(repaired);
    }
  }

  /**
   * Ranges read while writers change the same rows (on PostgreSQL read off the tail's path and
   * brought forward to a later batch: updates, deletes, inserts and key moves in between) repair
   * nothing. 2,500 rows, so that a pass is three ranges and rows change between them.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void reconciliationDuringConcurrentWritesRepairsNothing(Kind kind) throws Exception {
    List<String> prefill = new ArrayList<>();
    for (int id = 0; id < 2500; id++) {
      prefill.add("(" + id + ", 'p', 0)");
    }
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL, qty int NOT NULL)",
            "INSERT INTO items VALUES " + String.join(", ", prefill),
            "CREATE TABLE other (id int PRIMARY KEY, v int NOT NULL)",
            "INSERT INTO other VALUES (1, 1)");
    String upsert =
        kind == Kind.MYSQL
            ? "INSERT INTO items VALUES (%d, 'w%d', 1) "
                + "ON DUPLICATE KEY UPDATE qty = qty + 1, name = 'u%2$d'"
            : "INSERT INTO items VALUES (%d, 'w%d', 1) "
                + "ON CONFLICT (id) DO UPDATE SET qty = items.qty + 1, name = 'u%2$d'";
    try (Pipeline p = Pipeline.create(kind, "nodrift", ddl, "items", "other");
        Server s = new Server(p, Duration.ofMillis(100), "items", "other")) {
      TableMirror<Map<String, Object>> m = s.mirror(p, "items");
      TableMirror<Map<String, Object>> o = s.mirror(p, "other");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicInteger commits = new AtomicInteger();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        int writer = w;
        Thread t =
            new Thread(
                () -> {
                  try (Connection c = p.db.connect();
                      Statement st = c.createStatement()) {
                    c.setAutoCommit(false);
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (!stop.get()) {
                      try {
                        int id = writer * 1000 + r.nextInt(50) + (r.nextBoolean() ? 3000 : 0);
                        switch (r.nextInt(5)) {
                          case 0 -> st.execute("DELETE FROM items WHERE id = " + id);
                          case 1 -> st.execute("UPDATE items SET qty = qty + 1 WHERE id = " + id);
                          case 2 -> // a key moved, out of its range and back
                              st.execute(
                                  "UPDATE items SET id = "
                                      + (id < 3000 ? id + 3000 : id - 3000)
                                      + " WHERE id = "
                                      + id);
                          default -> st.execute(String.format(upsert, id, writer));
                        }
                        st.execute("UPDATE other SET v = v + 1 WHERE id = 1");
                        if (r.nextInt(5) == 0) {
                          Thread.sleep(
                              r.nextInt(20)); // a transaction open across polls: outbox gaps
                        }
                        if (r.nextInt(10) == 0) {
                          c.rollback();
                        } else {
                          c.commit();
                          commits.incrementAndGet();
                        }
                      } catch (SQLException e) {
                        c.rollback(); // deadlock or lock wait: the workload just goes on
                      }
                    }
                  } catch (SQLException e) {
                    failure.compareAndSet(null, e);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "writer-" + w);
        writers.add(t);
        t.start();
      }
      Thread.sleep(5000); // ~50 reconciliations while writing
      assertThat(s.server.metrics().reconciliations())
          .as("reconciliations while writing")
          .isGreaterThanOrEqualTo(5);
      stop.set(true);
      for (Thread t : writers) {
        t.join(30_000);
      }
      assertThat(failure.get()).isNull();
      assertThat(commits.get()).isGreaterThan(20);
      p.awaitMirrorEqualsTable(m, "items");
      p.awaitMirrorEqualsTable(o, "other");
      Thread.sleep(500);
      assertThat(s.repairs()).as("rows repaired without drift").isZero();
      assertThat(s.server.metrics().reconciliations())
          .as("reconciliations run")
          .isGreaterThanOrEqualTo(10);
    }
  }
}
