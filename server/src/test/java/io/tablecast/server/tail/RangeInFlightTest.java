package io.tablecast.server.tail;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.Rows;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A reconciliation range read off the tail's path is brought forward through the batches read after
 * its snapshot to what the image holds after them, key by key, rows that trade keys within one
 * transaction included (a PostgreSQL DEFERRABLE key): the hub compares the range with the image,
 * and a row the image holds that the range lacks is taken for a row gone from the table (found by
 * {@code KeySwapTest} on a busy machine: reconciliation deleted a row from the image and from the
 * mirror, and counted a repair).
 */
class RangeInFlightTest {
  private static final TableSchema ITEMS = FakeChangeSource.table("items");

  @Test
  void aRowMovedOntoAKeyWhoseOldRowIsDeletedLaterInTheBatchStaysInTheRange() {
    // read before: c on 1, a on 2, b on 3; then, in one transaction: c moves to 2, a is deleted
    RangeInFlight range = inFlight(row(1, "c"), row(2, "a"), row(3, "b"));
    range.follow(
        batch(
            FakeChangeSource.upsert(ITEMS, row(1, "c"), row(2, "c")),
            FakeChangeSource.delete(ITEMS, row(2, "a"))));
    assertThat(broughtForward(range)).containsExactlyInAnyOrder(row(2, "c"), row(3, "b"));
  }

  @Test
  void rowsThatSwapKeysAreBothInTheRange() {
    RangeInFlight range = inFlight(row(1, "a"), row(2, "b"));
    range.follow(
        batch(
            FakeChangeSource.upsert(ITEMS, row(1, "a"), row(2, "a")),
            FakeChangeSource.upsert(ITEMS, row(2, "b"), row(1, "b"))));
    assertThat(broughtForward(range)).containsExactlyInAnyOrder(row(1, "b"), row(2, "a"));
  }

  @Test
  void aChangeLeavingAKeyTakesItsRowAwayWhenNoChangeOfTheBatchMovedAnotherThere() {
    RangeInFlight range = inFlight(row(1, "a"), row(2, "b"), row(3, "c"));
    range.follow(batch(FakeChangeSource.upsert(ITEMS, row(1, "a"), row(4, "a"))));
    // a row moved in by an earlier batch is no longer protected: each batch is one image step
    range.follow(batch(FakeChangeSource.delete(ITEMS, row(4, "not the row there"))));
    range.follow(
        batch(
            FakeChangeSource.upsert(ITEMS, row(2, "b"), row(5, "b")),
            FakeChangeSource.delete(ITEMS, row(5, "b")),
            // MySQL/MariaDB: a delete names no row
            new RowEvent.Delete("public.items", ITEMS, FakeChangeSource.key(3), null)));
    assertThat(broughtForward(range)).isEmpty();
  }

  private static RangeInFlight inFlight(ObjectNode... read) {
    RangeRead range = new RangeRead(ITEMS, null, null, true, null, 1_000);
    List<byte[]> rows = FakeChangeSource.bytes(ITEMS, List.of(read));
    return new RangeInFlight(
        range, CompletableFuture.completedFuture(new RangeRead.Rows(rows, null)));
  }

  private static CommittedBatch batch(RowEvent... events) {
    return new CommittedBatch(List.of(events), 1234);
  }

  private static List<ObjectNode> broughtForward(RangeInFlight range) {
    RangeRead.Rows read = (RangeRead.Rows) range.outcome();
    return range.broughtForward(read.rows()).stream().map(r -> Rows.json(ITEMS, r)).toList();
  }
}
