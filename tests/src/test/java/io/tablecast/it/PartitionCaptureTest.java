package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL declarative partitioning: every change of a partitioned table reaches its mirror under
 * the cached table's name, whichever partition holds the row and however the write addressed it;
 * partitions created, attached, detached and truncated while the server runs leave the mirror equal
 * to the table.
 */
class PartitionCaptureTest {

  /** List partitions, one of them sub-partitioned by range, and a default partition. */
  private static final List<String> ORDERS =
      List.of(
          "CREATE TABLE orders (id int NOT NULL, region text NOT NULL, amount numeric(10,2), "
              + "PRIMARY KEY (id, region)) PARTITION BY LIST (region)",
          "CREATE TABLE orders_eu PARTITION OF orders FOR VALUES IN ('eu')",
          "CREATE TABLE orders_us PARTITION OF orders FOR VALUES IN ('us') PARTITION BY RANGE (id)",
          "CREATE TABLE orders_us_lo PARTITION OF orders_us FOR VALUES FROM (MINVALUE) TO (100)",
          "CREATE TABLE orders_us_hi PARTITION OF orders_us FOR VALUES FROM (100) TO (MAXVALUE)",
          "CREATE TABLE orders_other PARTITION OF orders DEFAULT",
          "INSERT INTO orders VALUES (1, 'eu', 1.00), (2, 'us', 2.00), (200, 'us', 3.00), (3, 'asia', 4.00)");

  /** Range and hash partitioning. */
  private static final List<String> READINGS_AND_EVENTS =
      List.of(
          "CREATE TABLE readings (sensor int NOT NULL, day date NOT NULL, v double precision, "
              + "PRIMARY KEY (sensor, day)) PARTITION BY RANGE (day)",
          "CREATE TABLE readings_2023 PARTITION OF readings FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')",
          "CREATE TABLE readings_2024 PARTITION OF readings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
          "CREATE TABLE events (id bigint PRIMARY KEY, kind text) PARTITION BY HASH (id)",
          "CREATE TABLE events_0 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 0)",
          "CREATE TABLE events_1 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 1)",
          "CREATE TABLE events_2 PARTITION OF events FOR VALUES WITH (MODULUS 3, REMAINDER 2)",
          "INSERT INTO readings VALUES (1, '2023-05-01', 0.5), (1, '2024-05-01', 1.5)",
          "INSERT INTO events SELECT g, 'k' || g FROM generate_series(1, 9) g");

  @Test
  void listSubPartitionedAndDefaultPartitionsReachTheMirrorWhicheverWayTheyAreWritten() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "part_list", ORDERS, "orders")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("orders"), "orders");
      assertThat(m.size()).isEqualTo(4);
      p.sql(
          "INSERT INTO orders VALUES (4, 'eu', 5.00), (150, 'us', 6.00), (5, 'mars', 7.00)", // through the parent
          "INSERT INTO orders_eu VALUES (6, 'eu', 8.00)", // addressed to a partition
          "INSERT INTO orders_us_lo VALUES (7, 'us', 9.00)", // to a sub-partition
          "INSERT INTO orders_other VALUES (8, 'moon', 10.00)", // to the default partition
          "UPDATE orders SET amount = amount * 2 WHERE id IN (1, 2, 3)",
          "UPDATE orders_us_hi SET amount = 0 WHERE id = 200",
          "DELETE FROM orders_eu WHERE id = 6",
          "DELETE FROM orders WHERE id = 5");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.size()).isEqualTo(8);
    }
  }

  @Test
  void rangeAndHashPartitionsReachTheMirror() {
    try (Pipeline p =
        Pipeline.start(
            Kind.POSTGRESQL, "part_range_hash", READINGS_AND_EVENTS, "readings", "events")) {
      TableMirror<Map<String, Object>> readings = p.readyMirror(p.client("readings"), "readings");
      TableMirror<Map<String, Object>> events = p.readyMirror(p.client("events"), "events");
      p.sql(
          "INSERT INTO readings VALUES (2, '2023-07-01', 2.5), (2, '2024-07-01', 3.5)",
          "INSERT INTO readings_2024 VALUES (3, '2024-12-31', 4.5)",
          "UPDATE readings SET v = -v WHERE sensor = 1",
          "DELETE FROM readings_2023 WHERE sensor = 2",
          "INSERT INTO events SELECT g, 'new' || g FROM generate_series(10, 30) g",
          "UPDATE events SET kind = 'updated' WHERE id % 2 = 0",
          "INSERT INTO events_1 SELECT g, 'direct' FROM generate_series(31, 60) g WHERE satisfies_hash_partition("
              + "'events'::regclass, 3, 1, g::bigint)",
          "DELETE FROM events_0");
      p.awaitMirrorEqualsTable(readings, "readings");
      p.awaitMirrorEqualsTable(events, "events");
    }
  }

  /**
   * An UPDATE of the partition key moves a row between partitions: PostgreSQL fires DELETE on the
   * old partition and INSERT on the new one, in one transaction, so one batch: a reader never sees
   * the table one row short.
   */
  @Test
  void rowsMovingBetweenPartitionsNeverVanishFromTheMirror() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "part_move", ORDERS, "orders")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("mover"), "orders");
      int rows = m.size();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger torn = new AtomicInteger();
      AtomicInteger scans = new AtomicInteger();
      AtomicReference<Throwable> readerFailure = new AtomicReference<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    if (m.rows().size() != rows) {
                      torn.incrementAndGet();
                    }
                    scans.incrementAndGet();
                  }
                } catch (Throwable t) {
                  readerFailure.set(t);
                }
              });
      reader.start();
      String[] regions = {"us", "eu", "asia", "us"};
      for (int i = 0; i < 40; i++) {
        String to = regions[(i + 1) % regions.length];
        // row 1 travels eu -> us (sub-partition lo) -> asia (default) -> ...; row 200 between us_hi
        // and eu
        p.sql("UPDATE orders SET region = '" + to + "' WHERE id = 1");
        p.transaction(
            "UPDATE orders SET region = CASE region WHEN 'us' THEN 'eu' ELSE 'us' END WHERE id = 200",
            "UPDATE orders SET id = CASE id WHEN 2 THEN 102 ELSE 2 END WHERE id IN (2, 102)"); // us_lo <-> us_hi
      }
      p.awaitMirrorEqualsTable(m, "orders");
      await().atMost(Duration.ofSeconds(10)).until(() -> scans.get() > 100);
      stop.set(true);
      reader.join();
      assertThat(readerFailure.get()).isNull();
      assertThat(torn.get()).as("reads of the mirror one row short or long").isZero();
    }
  }

  /**
   * CREATE ... PARTITION OF gets the row trigger by cloning; ATTACH brings rows without firing any
   * trigger, so the server re-reads the table; a later TRUNCATE of the new partition needs the
   * statement trigger the server installs on it.
   */
  @Test
  void partitionsCreatedOrAttachedWhileServingAreCaptured() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "part_attach", ORDERS, "orders")) {
      p.allowRepairs(2); // rows 20 and 21, brought by ATTACH
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("attach"), "orders");
      p.sql(
          "DROP TABLE orders_other", // a default partition would hold the rows of the new regions
          "CREATE TABLE orders_fr PARTITION OF orders FOR VALUES IN ('fr')",
          "INSERT INTO orders VALUES (10, 'fr', 1.00), (11, 'fr', 2.00)");
      p.awaitMirrorEqualsTable(m, "orders");

      p.sql(
          "CREATE TABLE orders_de (LIKE orders INCLUDING ALL)",
          "INSERT INTO orders_de VALUES (20, 'de', 3.00), (21, 'de', 4.00)", // not in orders yet
          "ALTER TABLE orders ATTACH PARTITION orders_de FOR VALUES IN ('de')");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.get(20, "de")).containsEntry("amount", "3.00");

      p.sql(
          "INSERT INTO orders_de VALUES (22, 'de', 5.00)",
          "UPDATE orders SET amount = 9.00 WHERE id = 10");
      p.awaitMirrorEqualsTable(m, "orders");
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(p.server().metrics().resyncs())
                      .isPositive()); // the attach, not a repair
      // the server has put its TRUNCATE trigger on the attached partition
      await().atMost(Duration.ofSeconds(20)).until(() -> truncateTriggers(p, "orders_de") == 1);
      p.sql("TRUNCATE orders_de", "TRUNCATE orders_fr");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.get(20, "de")).isNull();
      assertThat(m.get(10, "fr")).isNull();
    }
  }

  @Test
  void rowsOfADetachedPartitionLeaveTheMirrorAndItsLaterChangesStayOut() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "part_detach", ORDERS, "orders")) {
      p.allowRepairs(1); // row 1, taken away by DETACH
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("detach"), "orders");
      p.sql("ALTER TABLE orders DETACH PARTITION orders_eu");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.get(1, "eu")).isNull();
      p.awaitCaptureTriggersDropped("orders_eu"); // before that, its writes still reach m
      p.sql(
          "INSERT INTO orders_eu VALUES (30, 'eu', 1.00)",
          "UPDATE orders_eu SET amount = 0",
          "TRUNCATE orders_eu",
          "INSERT INTO orders VALUES (31, 'us', 2.00)");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.get(31, "us")).isNotNull();
      assertThat(m.get(30, "eu")).isNull();
    }
  }

  /**
   * Retention as time-partitioned PostgreSQL tables get it: the oldest partition dropped (rows gone
   * without a trigger), one detached {@code CONCURRENTLY} (two transactions of its own), and the
   * next one created.
   */
  @Test
  void rowsOfADroppedOrConcurrentlyDetachedPartitionLeaveTheMirror() {
    try (Pipeline p =
        Pipeline.start(Kind.POSTGRESQL, "part_drop", READINGS_AND_EVENTS, "readings")) {
      p.allowRepairs(2); // the two rows taken away, should reconciliation find them first
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("drop"), "readings");
      p.sql(
          "CREATE TABLE readings_2025 PARTITION OF readings FOR VALUES FROM ('2025-01-01') TO"
              + " ('2026-01-01')",
          "INSERT INTO readings VALUES (2, '2025-05-01', 2.5)",
          "DROP TABLE readings_2023");
      p.awaitMirrorEqualsTable(m, "readings");
      assertThat(m.size()).isEqualTo(2);
      p.sql("ALTER TABLE readings DETACH PARTITION readings_2024 CONCURRENTLY");
      p.awaitMirrorEqualsTable(m, "readings");
      assertThat(m.size()).isEqualTo(1);
    }
  }

  @Test
  void truncateOfOnePartitionRemovesOnlyItsRows() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "part_truncate", ORDERS, "orders")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("truncate"), "orders");
      p.sql("TRUNCATE orders_us_lo");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.get(2, "us")).isNull();
      assertThat(m.get(200, "us")).isNotNull();
      p.transaction(
          "INSERT INTO orders VALUES (2, 'us', 1.00)",
          "TRUNCATE orders_us",
          // in one transaction: ends with only row 3 in us
          "INSERT INTO orders VALUES (3, 'us', 1.00)");
      p.awaitMirrorEqualsTable(m, "orders");
      p.sql("TRUNCATE orders");
      p.awaitMirrorEqualsTable(m, "orders");
      assertThat(m.size()).isZero();
    }
  }

  /**
   * A partition cached on its own and through its parent: each mirror gets the partition's changes.
   */
  @Test
  void aPartitionCanBeCachedOnItsOwnAsWellAsThroughItsParent() {
    try (Pipeline p =
        Pipeline.start(Kind.POSTGRESQL, "part_own", ORDERS, "orders", "orders_eu", "orders_us")) {
      TableMirror<Map<String, Object>> orders = p.readyMirror(p.client("orders"), "orders");
      TableMirror<Map<String, Object>> eu = p.readyMirror(p.client("eu"), "orders_eu");
      TableMirror<Map<String, Object>> us = p.readyMirror(p.client("us"), "orders_us");
      p.sql(
          "INSERT INTO orders VALUES (40, 'eu', 1.00), (41, 'us', 2.00)",
          "INSERT INTO orders_eu VALUES (42, 'eu', 3.00)",
          "INSERT INTO orders_us_hi VALUES (400, 'us', 4.00)",
          "UPDATE orders SET amount = 7 WHERE id = 1",
          "UPDATE orders SET region = 'eu' WHERE id = 2",
          "DELETE FROM orders_eu WHERE id = 40",
          "TRUNCATE orders_us_lo");
      p.awaitMirrorEqualsTable(orders, "orders");
      p.awaitMirrorEqualsTable(eu, "orders_eu");
      p.awaitMirrorEqualsTable(us, "orders_us");
      assertThat(eu.get(2, "eu")).isNotNull();
    }
  }

  private static long truncateTriggers(Pipeline p, String table) throws Exception {
    try (java.sql.Connection c = p.db.connect();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_trigger WHERE tgrelid = '"
                    + p.db.table(table)
                    + "'::regclass AND tgtype & 32 <> 0")) { // TRIGGER_TYPE_TRUNCATE
      rs.next();
      return rs.getLong(1);
    }
  }
}
