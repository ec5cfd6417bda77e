package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB partition maintenance on a cached partitioned table, as time-partitioned tables get
 * it: a retention script drops the oldest partition and adds the next, a bulk load is swapped in by
 * {@code EXCHANGE PARTITION}, one partition is emptied by {@code TRUNCATE PARTITION}. None of them
 * fires a trigger; the capture check must find each within {@code capture_check_interval} and have
 * the table re-read, so that mirrors follow without a reconciliation repair ({@link Pipeline} fails
 * the test on any).
 */
class MysqlPartitionMaintenanceTest {

  @Test
  void droppedTruncatedAndExchangedPartitionsReachTheMirrorWithoutARepair() {
    List<String> ddl =
        List.of(
            "CREATE TABLE readings (day INT, sensor INT, value INT, PRIMARY KEY (day, sensor))"
                + " PARTITION BY RANGE (day) (PARTITION d1 VALUES LESS THAN (2),"
                + " PARTITION d2 VALUES LESS THAN (3), PARTITION d3 VALUES LESS THAN (4))",
            "INSERT INTO readings VALUES (1, 1, 10), (1, 2, 11), (2, 1, 20), (2, 2, 21),"
                + " (3, 1, 30)",
            "CREATE TABLE readings_load (day INT, sensor INT, value INT, PRIMARY KEY (day, sensor))",
            "INSERT INTO readings_load VALUES (3, 7, 70), (3, 8, 80)");
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "partmaint", ddl, "readings")) {
      // the capture check alone: a reconciliation pass would repair what the check missed, but
      // might also come first (repairs fail the test), so none runs here
      p.startServer(Duration.ofHours(1), Duration.ofMillis(200));
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("partmaint"), "readings");
      String readings = p.db.table("readings");

      // retention: the oldest day dropped, the next day added, in one run of the script
      p.sql(
          "ALTER TABLE " + readings + " DROP PARTITION d1",
          "ALTER TABLE " + readings + " ADD PARTITION (PARTITION d4 VALUES LESS THAN (5))",
          "INSERT INTO " + readings + " VALUES (4, 1, 40)");
      p.awaitMirrorEqualsTable(m, "readings");
      assertThat(m.size()).isEqualTo(4);

      p.sql("ALTER TABLE " + readings + " TRUNCATE PARTITION d2");
      p.awaitMirrorEqualsTable(m, "readings");
      assertThat(m.size()).isEqualTo(2);

      // a day loaded aside and swapped in: its rows arrive, the partition's former rows leave
      p.sql(
          "ALTER TABLE "
              + readings
              + " EXCHANGE PARTITION d3 WITH TABLE "
              + p.db.table("readings_load"));
      p.awaitMirrorEqualsTable(m, "readings");
      assertThat(m.size()).isEqualTo(3);

      p.sql("UPDATE " + readings + " SET value = 71 WHERE day = 3 AND sensor = 7");
      p.awaitMirrorEqualsTable(m, "readings");
    }
  }
}
