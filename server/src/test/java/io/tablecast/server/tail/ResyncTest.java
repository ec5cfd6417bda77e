package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: an outbox row with op {@code R} (written by capture for changes rows cannot describe,
 * such as a TRUNCATE of one partition) makes the tail re-read that table in the same snapshot as
 * the rest of the batch.
 */
class ResyncTest {

  @Test
  void resyncMarkerRereadsTheTableInTheBatchSnapshot() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("resync");
    db.execute(
        "CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL)",
        "INSERT INTO items VALUES (1, 1), (2, 2)");
    try (ChangeSource source =
        ChangeSources.open(
            new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null))) {
      source.snapshot((t, row) -> {});
      try (Connection c = db.connect();
          Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        // captured too: the triggers fire ALWAYS
        s.execute("SET LOCAL session_replication_role = replica");
        s.execute("DELETE FROM items WHERE id = 1");
        s.execute(
            "INSERT INTO tablecast_outbox (table_name, op) VALUES ('"
                + db.table("items")
                + "', 'R')");
        c.commit();
      }
      // a later transaction: may land in the same batch or after
      db.execute("INSERT INTO items VALUES (3, 3)");
      List<CommittedBatch.TableRead> reads = new ArrayList<>();
      List<RowEvent> events = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                CommittedBatch b = source.poll(Duration.ofMillis(50));
                reads.addAll(b.tableReads());
                events.addAll(b.events());
                return !reads.isEmpty()
                    && events.stream()
                        .anyMatch(
                            e -> Rows.after(e) != null && Rows.after(e).get("id").asInt() == 3);
              });
      assertThat(reads).hasSize(1);
      CommittedBatch.TableRead read = reads.get(0);
      assertThat(read.purpose()).isEqualTo(CommittedBatch.Purpose.RESYNC);
      assertThat(read.schema().id().qualified()).isEqualTo(db.table("items"));
      List<Integer> ids =
          Rows.json(read.schema(), read.rows()).stream()
              .map(r -> r.get("id").asInt())
              .sorted()
              .toList();
      // the read sees the table as of its batch: without row 1, and with row 3 only if 3 is in that
      // batch too
      assertThat(ids).startsWith(2).doesNotContain(1);
    }
  }
}
