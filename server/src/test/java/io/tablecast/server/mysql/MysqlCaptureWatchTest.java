package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: the capture check finds what changes a cached table without a trigger recording it
 * (a foreign key added while serving, from a table the server does not cache; a dropped trigger),
 * counts it, installs the triggers when allowed and re-reads the table in the stream's snapshot, so
 * the changes made meanwhile are published as a resync, not found later as drift. The schedule is
 * off here ({@code capture_check_interval: 0s}): the test runs each check itself.
 */
class MysqlCaptureWatchTest {

  private static SourceConfig config(TestDatabases.Isolated db, boolean install) {
    return new SourceConfig(
        db.jdbcUrl(),
        null,
        null,
        List.of("bin"),
        install,
        null,
        null,
        Duration.ZERO,
        Duration.ZERO);
  }

  private static void createTables(TestDatabases.Isolated db) {
    db.execute(
        "CREATE TABLE warehouse (id INT PRIMARY KEY)",
        "CREATE TABLE bin (id INT PRIMARY KEY, warehouse_id INT NOT NULL, KEY (warehouse_id))",
        "INSERT INTO warehouse VALUES (1), (2)",
        "INSERT INTO bin VALUES (10, 1), (11, 1), (12, 2)");
  }

  @Test
  void foreignKeyAddedWhileServingIsFoundInstalledAndItsMissedCascadesResynced() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("watch_fk");
    createTables(db);
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    try (MysqlChangeSource source =
        (MysqlChangeSource) ChangeSources.open(config(db, true), metrics)) {
      source.snapshot((t, row) -> {});
      db.execute(
          "ALTER TABLE bin ADD CONSTRAINT fk_bin_warehouse FOREIGN KEY (warehouse_id) REFERENCES warehouse (id) "
              + "ON DELETE CASCADE",
          "DELETE FROM warehouse WHERE id = 1"); // cascades before any trigger records it

      CaptureStatus found = source.captureWatch().check();
      assertThat(found.missing())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.on().qualified()).isEqualTo(db.table("warehouse"));
                assertThat(t.foreignKeys()).containsExactly("fk_bin_warehouse");
              });
      assertThat(metrics.captureProblems()).isEqualTo(1);
      assertThat(triggerCount(db, "warehouse")).isEqualTo(1);

      List<CommittedBatch.TableRead> reads = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                reads.addAll(source.poll(Duration.ofMillis(50)).tableReads());
                return !reads.isEmpty();
              });
      assertThat(reads)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.purpose()).isEqualTo(CommittedBatch.Purpose.RESYNC);
                assertThat(Rows.json(r.schema(), r.rows()))
                    .extracting(row -> row.get("id").asInt())
                    .containsExactly(12);
              });

      db.execute("DELETE FROM warehouse WHERE id = 2"); // now captured by the installed trigger
      List<RowEvent> events = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return !events.isEmpty();
              });
      assertThat(events)
          .extracting(e -> e.op() + " " + Rows.before(e).get("id").asInt())
          .containsExactly("DELETE 12");
      assertThat(source.captureWatch().check().missing()).isEmpty();
      assertThat(metrics.captureProblems()).isEqualTo(1);
    }
  }

  @Test
  void withoutInstallTriggersAMissingTriggerIsReportedOnceAndNothingIsInstalled() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("watch_noinstall");
    createTables(db);
    try (MysqlChangeSource installed = (MysqlChangeSource) ChangeSources.open(config(db, true))) {
      installed.snapshot((t, row) -> {}); // the own triggers of bin, as `tablecast install` would
    }
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    try (MysqlChangeSource source =
        (MysqlChangeSource) ChangeSources.open(config(db, false), metrics)) {
      source.snapshot((t, row) -> {});
      String dropped = firstTrigger(db, "bin");
      db.execute("DROP TRIGGER " + dropped);

      assertThat(source.captureWatch().check().missing())
          .extracting(RequiredTrigger::name)
          .containsExactly(dropped);
      assertThat(source.captureWatch().check().missing()).hasSize(1);
      assertThat(metrics.captureProblems()).as("reported once while it stays missing").isEqualTo(1);
      assertThat(triggerCount(db, "bin")).isEqualTo(2);
      assertThat(source.poll(Duration.ofMillis(50)).tableReads()).isEmpty();
    }
  }

  private static String firstTrigger(TestDatabases.Isolated db, String table) throws SQLException {
    return db.triggerNames(table).get(0);
  }

  private static long triggerCount(TestDatabases.Isolated db, String table) throws SQLException {
    return db.triggerNames(table).size();
  }
}
