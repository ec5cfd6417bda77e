package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ChangeSource#resync}, what the tail loop asks for when the hub could not apply an event of
 * a table to its image: a later poll re-reads the whole table in its consistent read, on both
 * databases; a name that is not cached is ignored.
 */
class ResyncRequestTest {

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aRequestedResyncReReadsTheWholeTableInALaterPoll(TestDatabases.Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("resync_request");
    db.execute(
        "CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL)",
        "INSERT INTO items VALUES (1, 1), (2, 2)",
        "CREATE TABLE other (id INT PRIMARY KEY)");
    try (ChangeSource source =
        ChangeSources.open(
            new SourceConfig(
                db.jdbcUrl(), null, null, List.of("items", "other"), true, null, null))) {
      source.snapshot((t, row) -> {});
      source.resync("no_such.table");
      source.resync(db.table("items"));
      List<CommittedBatch.TableRead> reads = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                reads.addAll(resyncs(source.poll(Duration.ofMillis(50))));
                return !reads.isEmpty();
              });
      assertThat(reads)
          .singleElement()
          .satisfies(
              read -> {
                assertThat(read.purpose()).isEqualTo(CommittedBatch.Purpose.RESYNC);
                assertThat(read.chunk()).as("the whole table").isNull();
                assertThat(read.schema().id().qualified()).isEqualTo(db.table("items"));
                assertThat(Rows.json(read.schema(), read.rows()))
                    .extracting(r -> r.get("id").asInt())
                    .containsExactlyInAnyOrder(1, 2);
              });
      for (int i = 0; i < 5; i++) {
        assertThat(resyncs(source.poll(Duration.ofMillis(20)))).as("read once").isEmpty();
      }
    }
  }

  /** The batch's whole-table re-reads (not reconciliation's key ranges). */
  private static List<CommittedBatch.TableRead> resyncs(CommittedBatch batch) {
    return batch.tableReads().stream()
        .filter(r -> r.purpose() == CommittedBatch.Purpose.RESYNC)
        .toList();
  }
}
