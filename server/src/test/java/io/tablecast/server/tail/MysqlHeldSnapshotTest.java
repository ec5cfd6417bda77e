package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The MySQL/MariaDB tail keeps the snapshot of a read that found rows open until its next read
 * (ReadSnapshots): a snapshot that has read a table holds that table's metadata lock, for which the
 * DDL of a trigger reinstall waits. After a new primary key, the tail's thread has the triggers
 * reinstalled (once on its own thread, now beside it) and must end its own snapshot first, or the
 * reinstall waits for it for ever.
 */
class MysqlHeldSnapshotTest {

  @Test
  void aNewPrimaryKeyIsTakenUpWhileTheLastReadsSnapshotIsHeld() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("heldsnap");
    db.execute(
        "CREATE TABLE keyed (id INT PRIMARY KEY, code VARCHAR(20) NOT NULL, v INT)",
        "INSERT INTO keyed VALUES (1, 'a', 1)");
    ExecutorService tail = Executors.newSingleThreadExecutor();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (ChangeSource source =
        ChangeSources.open(
            new SourceConfig( // reconciliation passes, which compare the catalog first, 0.1 s apart
                db.jdbcUrl(),
                null,
                null,
                List.of("keyed"),
                true,
                null,
                null,
                Duration.ofSeconds(1),
                null),
            MicrometerServerMetrics.inMemory(),
            ChangeSources.Tuning.DEFAULT)) {
      source.snapshot((t, row) -> {});
      db.execute("ALTER TABLE keyed DROP PRIMARY KEY, ADD PRIMARY KEY (code)");
      writer.submit( // rows keep changing, so that every read finds some and holds its snapshot
          () -> {
            try (Connection c = db.connect();
                Statement s = c.createStatement()) {
              while (!Thread.currentThread().isInterrupted()) {
                s.execute("UPDATE keyed SET v = v + 1 WHERE id = 1");
                Thread.sleep(1);
              }
            }
            return null;
          });
      Future<List<String>> key =
          tail.submit(
              () -> {
                while (true) {
                  source.poll(Duration.ofMillis(50));
                  TableSchema t = source.tables().get(0);
                  if (t.primaryKey().equals(List.of("code"))) {
                    return t.primaryKey();
                  }
                }
              });
      try {
        assertThat(key.get(20, TimeUnit.SECONDS))
            .as("the new key taken up, its triggers reinstalled")
            .containsExactly("code");
      } catch (TimeoutException e) {
        throw new AssertionError("the tail's thread waits for its own snapshot", e);
      }
    } finally {
      writer.shutdownNow();
      tail.shutdownNow();
      writer.awaitTermination(10, TimeUnit.SECONDS);
      tail.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
