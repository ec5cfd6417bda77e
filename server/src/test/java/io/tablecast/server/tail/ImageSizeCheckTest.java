package io.tablecast.server.tail;

import static io.tablecast.server.hub.FakeChangeSource.bytes;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.testing.TestHeap;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tables too big for the heap are refused with their names, the memory they need, the heap there is
 * and the setting to change: all at once before the first row, or while loading when the catalog's
 * estimate was wrong. A heap of the test's own makes each refusal deterministic.
 */
class ImageSizeCheckTest {

  private static final String NAME = "n".repeat(40);

  /** The images: count what they take on the test's heap. */
  private static final class Images implements ChangeSource.SnapshotSink {
    final TestHeap heap;
    final List<byte[]> rows = new ArrayList<>();
    long arrays;

    Images(TestHeap heap) {
      this.heap = heap;
    }

    @Override
    public void row(TableSchema table, byte[] row) {
      rows.add(row);
      arrays += ImageSizeCheck.rowBytes(row);
      heap.images = arrays + ImageSizeCheck.indexBytes(rows.size());
    }
  }

  private static List<byte[]> firstRows(int n) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(bytes(i, NAME));
    }
    return out;
  }

  @Test
  void theIndexSizeIsTheSmallestPowerOfTwoFromSixteenThatHoldsTheRowsAtThreeQuarters() {
    for (long rows = 0; rows < 200_000; rows++) {
      long slots = ImageSizeCheck.indexSlots(rows);
      assertThat(Long.bitCount(slots)).isEqualTo(1);
      assertThat(slots).isGreaterThanOrEqualTo(16);
      assertThat(slots * 3 / 4).as("%d rows", rows).isGreaterThanOrEqualTo(rows);
      assertThat(slots == 16 || slots / 2 * 3 / 4 < rows).as("smallest for %d rows", rows).isTrue();
    }
    assertThat(ImageSizeCheck.indexSlots(1L << 40)).isEqualTo(1L << 41);
  }

  @Test
  void tablesTooBigForTheHeapAreRefusedTogetherBeforeTheirFirstRow() {
    TableSchema items = table("items");
    TableSchema orders = table("orders");
    TableSchema countries = table("countries");
    TestHeap heap = new TestHeap(64L << 20, 10L << 20);
    Images images = new Images(heap);
    ImageSizeCheck check = new ImageSizeCheck(heap, 20, List.of(items, orders, countries), images);

    assertThatThrownBy(
            () ->
                check.sizes(
                    List.of(
                        new TableSize(items, 1_000_000, firstRows(1000)),
                        new TableSize(orders, 400_000, firstRows(1000)),
                        new TableSize(countries, -1, firstRows(250)))))
        .isInstanceOf(HeapTooSmallException.class)
        .hasMessageContaining("the cached tables do not fit in the heap")
        .hasMessageContaining(
            "public.items: about 1,000,000 rows (catalog estimate) x 64 bytes a row (measured on its first 1,000) + 24 MiB of key index")
        .hasMessageContaining("= 85 MiB")
        .hasMessageContaining("public.orders: about 400,000 rows")
        .hasMessageContaining("public.countries: 250 rows")
        .hasMessageContaining("maximum heap 64 MiB, 10 MiB in use, 20 % kept for serving")
        .hasMessageContaining("heap_reserve_percent")
        .hasMessageContaining("at least -Xmx")
        .hasMessageContaining("TABLECAST_JAVA_OPTS=-Xmx");
    assertThat(images.rows).as("rows loaded before the refusal").isEmpty();
    assertThat(heap.collections).as("a full collection confirmed the shortage first").isEqualTo(1);
  }

  @Test
  void theHeapItSuggestsHoldsTheTables() {
    TableSchema items = table("items");
    TestHeap small = new TestHeap(64L << 20, 10L << 20);
    ImageSizeCheck refused = new ImageSizeCheck(small, 20, List.of(items), new Images(small));
    String message = "";
    try {
      refused.sizes(List.of(new TableSize(items, 1_000_000, firstRows(1000))));
    } catch (HeapTooSmallException e) {
      message = e.getMessage();
    }
    long xmx = Long.parseLong(message.replaceAll("(?s).*at least -Xmx(\\d+)m.*", "$1")) << 20;

    TestHeap suggested = new TestHeap(xmx, 10L << 20);
    Images images = new Images(suggested);
    ImageSizeCheck check = new ImageSizeCheck(suggested, 20, List.of(items), images);
    check.sizes(List.of(new TableSize(items, 1_000_000, firstRows(1000))));
    for (int i = 1; i <= 1_000_000; i++) {
      check.row(items, bytes(i, NAME));
    }
    assertThat(images.rows).hasSize(1_000_000);
  }

  @Test
  void aTableWithMoreRowsThanEstimatedIsRefusedWhileLoadingBeforeTheHeapRunsOut() {
    TableSchema items = table("items");
    TestHeap heap = new TestHeap(64L << 20, 10L << 20);
    Images images = new Images(heap);
    ImageSizeCheck check = new ImageSizeCheck(heap, 20, List.of(items), images);
    check.sizes(List.of(new TableSize(items, 5_000, firstRows(1000)))); // statistics out of date

    assertThatThrownBy(
            () -> {
              for (int i = 1; i <= 2_000_000; i++) {
                check.row(items, bytes(i, NAME));
              }
            })
        .isInstanceOf(HeapTooSmallException.class)
        .hasMessageContaining("table public.items does not fit in the heap")
        .hasMessageContaining("rows loaded of 5,000")
        .hasMessageContaining("more rows than the catalog estimated")
        .hasMessageContaining("TABLECAST_JAVA_OPTS=-Xmx");
    long limit = (64L << 20) - (64L << 20) / 100 * 20;
    assertThat(heap.used())
        .as("the heap never reached into the reserve")
        .isLessThanOrEqualTo(limit + ImageSizeCheck.CHECK_BYTES);
    assertThat(images.rows.size()).isGreaterThan(5_000).isLessThan(2_000_000);
  }

  @Test
  void garbageTheCollectorClearsIsNoReasonToRefuse() {
    TableSchema items = table("items");
    TestHeap heap = new TestHeap(64L << 20, 10L << 20);
    heap.garbage = 40L << 20; // the cheap reading says the heap is nearly full
    Images images = new Images(heap);
    ImageSizeCheck check = new ImageSizeCheck(heap, 20, List.of(items), images);
    check.sizes(List.of(new TableSize(items, 200_000, firstRows(1000))));
    for (int i = 1; i <= 200_000; i++) {
      check.row(items, bytes(i, NAME));
      if (i % 10_000 == 0) {
        heap.garbage += 4L << 20; // the load's own garbage (JDBC buffers, JSON text)
      }
    }
    assertThat(images.rows).hasSize(200_000);
  }

  @Test
  void theRowsOfATableReadAheadWholeAreExact() {
    TableSchema countries = table("countries");
    TestHeap heap = new TestHeap(64L << 20, 10L << 20);
    ImageSizeCheck check = new ImageSizeCheck(heap, 20, List.of(countries), new Images(heap));
    // the catalog says a million, but the first-rows read found all 250 there are
    check.sizes(List.of(new TableSize(countries, 1_000_000, firstRows(250))));
    assertThat(heap.collections).isZero();
  }

  /**
   * A table whose rows all came (those of the next table arrive) needs no more room, even when it
   * has exactly as many rows as make its key index full: only a table still loading past its
   * estimate must leave room for another doubling.
   */
  @Test
  void aTableLoadedWholeNeedsNoRoomForAnotherDoubling() {
    TableSchema items = table("items");
    TableSchema orders = table("orders");
    int full = 786_432; // three quarters of 2^20 slots: one more row doubles the index
    long images = full * 64L + ImageSizeCheck.indexBytes(full);
    // room for items and a little more, not for a second index of 2^21 slots (16 MiB)
    TestHeap heap = new TestHeap(((1L << 20) + images + (8L << 20)) * 100 / 80, 1L << 20);
    Images loaded = new Images(heap);
    ImageSizeCheck check = new ImageSizeCheck(heap, 20, List.of(items, orders), loaded);
    check.sizes(
        List.of(new TableSize(items, full, firstRows(1000)), new TableSize(orders, 0, List.of())));
    for (int i = 1; i <= full; i++) {
      check.row(items, bytes(i, NAME));
    }
    for (int i = 1; i <= 30_000; i++) {
      check.row(orders, bytes(i, NAME));
    }
    assertThat(loaded.rows).hasSize(full + 30_000);
  }
}
