package io.tablecast.server.image;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hub's side of the chunked drift check: what one key range, and the end of a pass, repair. */
class DriftPassesTest {
  private static final TableSchema ITEMS = FakeChangeSource.table("items");

  private static TableImage image(ObjectNode... rows) {
    TableImage image = new TableImage(ITEMS);
    for (ObjectNode r : rows) {
      image.put(Rows.bytes(ITEMS, r));
    }
    return image;
  }

  private static CommittedBatch.TableRead chunk(boolean first, boolean last, ObjectNode... rows) {
    return new CommittedBatch.TableRead(
        ITEMS,
        FakeChangeSource.bytes(ITEMS, List.of(rows)),
        CommittedBatch.Purpose.RECONCILE,
        new CommittedBatch.Chunk(first, last));
  }

  private static List<String> described(List<RowEvent> events) {
    return events.stream()
        .map(e -> e.op() + " " + (Rows.after(e) != null ? Rows.after(e) : Rows.before(e)).get("id"))
        .toList();
  }

  @Test
  void aPassThatSawEveryRowRepairsNothing() {
    TableImage image = image(row(1, "a"), row(2, "b"), row(3, "c"));
    DriftPasses passes = new DriftPasses();
    assertThat(passes.compare(image, chunk(true, false, row(1, "a"), row(2, "b"))).events())
        .isEmpty();
    assertThat(passes.inPass("public.items")).isTrue();
    assertThat(passes.compare(image, chunk(false, true, row(3, "c"))).events()).isEmpty();
    assertThat(passes.inPass("public.items")).isFalse();
  }

  @Test
  void rowsMissingOrDifferentInARangeAreRepairedAtOnceAndRowsNoPassSawAreDeletedAtItsEnd() {
    TableImage image = image(row(1, "a"), row(2, "stale"), row(4, "deleted unseen"), row(5, "e"));
    DriftPasses passes = new DriftPasses();
    assertThat(
            described(
                passes
                    .compare(image, chunk(true, false, row(1, "a"), row(2, "b"), row(3, "c")))
                    .events()))
        .containsExactly("UPDATE 2", "INSERT 3");
    assertThat(described(passes.compare(image, chunk(false, true, row(5, "e"))).events()))
        .containsExactly("DELETE 4");
  }

  @Test
  void aRowAChangePutInTheImageDuringThePassIsNotTakenForDeleted() {
    TableImage image = image(row(1, "a"), row(2, "b"));
    DriftPasses passes = new DriftPasses();
    passes.compare(image, chunk(true, false, row(1, "a"), row(2, "b")));
    // inserted after its range was read: only the change saw it
    assertThat(image.apply(FakeChangeSource.upsert(ITEMS, null, row(0, "new"))))
        .extracting(RowChange::op)
        .containsExactly(Op.INSERT);
    assertThat(passes.compare(image, chunk(false, true)).events()).isEmpty();
  }

  @Test
  void aRowOfTheLastRangeThatDiffersIsUpdatedNotDeleted() {
    TableImage image = image(row(1, "a"), row(2, "stale"));
    DriftPasses passes = new DriftPasses();
    passes.compare(image, chunk(true, false, row(1, "a")));
    // the repair is published and applied after the pass ended: the pass saw the row all the same
    assertThat(described(passes.compare(image, chunk(false, true, row(2, "b"))).events()))
        .containsExactly("UPDATE 2");
  }

  @Test
  void rowsMovedDeletedAndPutAgainByChangesDuringThePassAreJudgedByWhereTheyEnd() {
    TableImage image = image(row(1, "a"), row(2, "b"), row(3, "c"), row(4, "d"));
    DriftPasses passes = new DriftPasses();
    passes.compare(image, chunk(true, false, row(1, "a"), row(2, "b")));
    // 2 deleted, then inserted again; 1 moved to 7 (its range was read before)
    image.apply(FakeChangeSource.delete(ITEMS, row(2, "b")));
    image.apply(FakeChangeSource.upsert(ITEMS, null, row(2, "again")));
    image.apply(FakeChangeSource.upsert(ITEMS, row(1, "a"), row(7, "a")));
    // 4 is gone from the table without a trigger; 3 is still there
    assertThat(described(passes.compare(image, chunk(false, true, row(3, "c"))).events()))
        .containsExactly("DELETE 4");
  }

  @Test
  void aPassWhoseImageWasReplacedDeletesNothing() {
    TableImage image = image(row(1, "a"), row(9, "gone?"));
    DriftPasses passes = new DriftPasses();
    passes.compare(image, chunk(true, false, row(1, "a")));
    // a new column list since the pass began: the hub holds a new image of the same rows
    TableImage replaced = image(row(1, "a"), row(9, "gone?"));
    assertThat(described(passes.compare(replaced, chunk(false, true, row(2, "b"))).events()))
        .containsExactly("INSERT 2");
    assertThat(passes.inPass("public.items")).isFalse();
  }

  @Test
  void withoutTheStartOfAPassRangesAreComparedButNothingIsDeleted() {
    TableImage image = image(row(1, "a"), row(9, "gone?"));
    DriftPasses passes = new DriftPasses();
    passes.compare(image, chunk(true, false, row(1, "a")));
    passes.reset(); // a new snapshot replaced the images: the pass under way is void
    assertThat(described(passes.compare(image, chunk(false, true, row(2, "b"))).events()))
        .containsExactly("INSERT 2");
    // the next pass is whole again
    passes.compare(image, chunk(true, false, row(1, "a")));
    assertThat(described(passes.compare(image, chunk(false, true)).events()))
        .containsExactly("DELETE 9");
  }

  /**
   * Two rows of one key (a PostgreSQL parent's key does not bind its children) come next to each
   * other in key order: the image holds one, and passes neither swap them nor count them as drift,
   * but say how many rows the image cannot hold.
   */
  @Test
  void rowsThatShareAKeyAreCountedAndNotSwappedByEachPass() {
    TableImage image = image(row(1, "a"), row(2, "child"), row(3, "c"));
    DriftPasses passes = new DriftPasses();
    for (int pass = 0; pass < 2; pass++) {
      ReadDifferences first =
          passes.compare(image, chunk(true, false, row(1, "a"), row(2, "parent"), row(2, "child")));
      assertThat(first.events()).isEmpty();
      assertThat(first.whole()).isFalse();
      ReadDifferences last = passes.compare(image, chunk(false, true, row(3, "c"), row(3, "c2")));
      assertThat(last.events()).as("pass %d", pass).isEmpty();
      assertThat(last.duplicateRows()).isEqualTo(2);
    }
    // a key whose rows all differ from the image's: the last of them is the repair
    passes.compare(image, chunk(true, false, row(1, "a")));
    ReadDifferences last =
        passes.compare(image, chunk(false, true, row(2, "x"), row(2, "y"), row(3, "c")));
    assertThat(last.events())
        .extracting(e -> Rows.after(e).get("name").asText())
        .containsExactly("y");
    assertThat(last.duplicateRows()).isEqualTo(1);
    // gone: a whole pass finds none
    passes.compare(image, chunk(true, false, row(1, "a")));
    assertThat(
            passes.compare(image, chunk(false, true, row(2, "child"), row(3, "c"))).duplicateRows())
        .isZero();
  }
}
