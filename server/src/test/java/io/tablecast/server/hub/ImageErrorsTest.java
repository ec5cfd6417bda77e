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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hub's side of an event an image cannot take: {@link ChangeHub#publish} names the table to
 * re-read and says it stale after the batch; a whole read of the table, in a later batch or in the
 * same one, makes the image valid again.
 */
class ImageErrorsTest {

  private static final TableSchema A = table("a");
  private static final TableSchema B = table("b");

  /** An UPDATE whose row after it is cut short: no image can take it. */
  private static final RowEvent BAD =
      new RowEvent.Upsert(
          "public.a",
          A,
          FakeChangeSource.key(1),
          java.util.Arrays.copyOf(FakeChangeSource.bytes(1, "row1"), 2),
          FakeChangeSource.bytes(1, "row1"));

  private HubHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static CommittedBatch.TableRead wholeRead(TableSchema table, long rows) {
    List<ObjectNode> all = new ArrayList<>();
    for (long id = 1; id <= rows; id++) {
      all.add(row(id, "row" + id));
    }
    return new CommittedBatch.TableRead(
        table, FakeChangeSource.bytes(table, all), CommittedBatch.Purpose.RESYNC);
  }

  @Test
  void theTableIsNamedForAReReadAndIsStaleUntilAWholeReadOfItLands() throws Exception {
    h = new HubHarness(Duration.ofHours(1), 1000, A, B);
    h.load(2, A, B);
    HubHarness.Session s = h.connect("s");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    while (!(s.client().nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
      // the snapshot
    }

    assertThat(h.hub.publish(new CommittedBatch(List.of(BAD), 0))).containsExactly("public.a");
    assertThat(s.client().nextNonHeartbeat())
        .isEqualTo(new Message.TableStatus("public.a", true, ImageErrors.REASON));
    assertThat(h.hub.staleTables()).containsOnlyKeys("public.a");
    assertThat(h.hub.publish(new CommittedBatch(List.of(), 0, List.of(wholeRead(B, 2)))))
        .as("another table's read changes nothing")
        .isEmpty();
    assertThat(h.hub.staleTables()).containsOnlyKeys("public.a");

    // an event that fails again, and the re-read, in one batch: the read repairs the image
    assertThat(h.hub.publish(new CommittedBatch(List.of(BAD), 0, List.of(wholeRead(A, 3)))))
        .isEmpty();
    Message.ChangeBatch repair = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    assertThat(repair.changes())
        .singleElement()
        .satisfies(c -> assertThat(c.key().get(0).longValue()).isEqualTo(3));
    assertThat(s.client().nextNonHeartbeat())
        .isEqualTo(new Message.TableStatus("public.a", false, null));
    assertThat(h.hub.staleTables()).isEmpty();

    // invalid and re-read within one batch: never stale, nothing left to re-read
    assertThat(h.hub.publish(new CommittedBatch(List.of(BAD), 0, List.of(wholeRead(A, 3)))))
        .isEmpty();
    assertThat(h.hub.staleTables()).isEmpty();
  }
}
