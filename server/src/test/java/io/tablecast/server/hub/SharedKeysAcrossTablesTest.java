package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Rows that share a key within a batch (a PostgreSQL DEFERRABLE key) are kept per table: a row
 * hidden under another in one table is never shown in another table whose row of the same key
 * leaves in between (one set for the whole batch showed table a's hidden row in table b, undoing
 * b's delete); a TRUNCATE takes the rows hidden before it with the rest.
 */
class SharedKeysAcrossTablesTest {
  private static final TableSchema A = table("a");
  private static final TableSchema B = table("b");

  @Test
  void aRowHiddenInOneTableIsNotShownInAnotherWhoseRowOfTheKeyLeaves() throws Exception {
    try (HubHarness h = new HubHarness(Duration.ofHours(1), 1000, A, B)) {
      h.load(2, A, B); // both: 1 "row1", 2 "row2"
      List<RowEvent> swapAroundADelete =
          List.of(
              FakeChangeSource.upsert(A, row(1, "row1"), row(2, "row1")), // hides a's row 2
              FakeChangeSource.delete(B, row(2, "row2")),
              FakeChangeSource.upsert(A, row(2, "row2"), row(1, "row2")));
      h.hub.publish(new CommittedBatch(swapAroundADelete, 0));

      Map<String, Map<Long, String>> tables = snapshot(h);
      assertThat(tables)
          .containsEntry("public.a", Map.of(1L, "row2", 2L, "row1"))
          .containsEntry("public.b", Map.of(1L, "row1"));
    }
  }

  @Test
  void aRowHiddenBeforeATruncateIsNotShownAfterIt() throws Exception {
    try (HubHarness h = new HubHarness(Duration.ofHours(1), 1000, A, B)) {
      h.load(2, A, B);
      h.hub.publish(
          new CommittedBatch(
              List.of(
                  FakeChangeSource.upsert(A, row(1, "row1"), row(2, "row1")), // hides row 2
                  new RowEvent.Truncate("public.a"),
                  FakeChangeSource.upsert(A, null, row(2, "new")),
                  FakeChangeSource.upsert(A, row(2, "new"), row(5, "new"))),
              0));
      assertThat(snapshot(h).get("public.a")).isEqualTo(Map.of(5L, "new"));
    }
  }

  /** The tables' rows, by table and key, as a new session's snapshot gives them. */
  private static Map<String, Map<Long, String>> snapshot(HubHarness h) throws Exception {
    HubHarness.Session s = h.connect("s");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a", "public.b")));
    Map<String, Map<Long, String>> tables = new TreeMap<>();
    int ended = 0;
    while (ended < 2) {
      Message m = s.client().nextNonHeartbeat();
      if (m instanceof Message.SnapshotRows r) {
        for (ObjectNode row : r.rows()) {
          tables
              .computeIfAbsent(r.table(), t -> new TreeMap<>())
              .put(row.get("id").longValue(), row.get("name").textValue());
        }
      } else if (m instanceof Message.SnapshotEnd) {
        ended++;
      }
    }
    return tables;
  }
}
