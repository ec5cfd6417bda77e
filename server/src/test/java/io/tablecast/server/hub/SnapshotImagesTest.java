package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.bytes;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.MalformedRowException;
import io.tablecast.protocol.row.RowTableLoad;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.TableSize;
import io.tablecast.server.testing.Rows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A snapshot's images hold every row handed over, each in its table's image; they are sized for the
 * rows the catalog estimates, and an estimate far too high (statistics from before a mass delete)
 * leaves no index of its size behind once installed; a row not of its table's form is refused when
 * it is handed over.
 */
class SnapshotImagesTest {

  @Test
  void anImageSizedForAnEstimateFarTooHighIsInstalledWithAnIndexForItsRows() {
    TableSchema items = table("items");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items), (images, duplicates) -> installed.addAll(images));
    List<byte[]> first = new ArrayList<>();
    for (int id = 1; id <= TableSize.FIRST_ROWS; id++) {
      first.add(bytes(id, "v" + id));
    }
    load.sizes(List.of(new TableSize(items, 4_000_000, first))); // statistics out of date
    first.forEach(row -> load.row(items, row));
    load.install();

    TableImage image = single(installed);
    TableImage grown = new TableImage(items);
    first.forEach(grown::put);
    assertThat(image.size()).isEqualTo(TableSize.FIRST_ROWS);
    assertThat(image.indexBytes()).isLessThanOrEqualTo(2 * grown.indexBytes());
    assertThat(image.get(image.form().keyOf(first.get(7)))).isEqualTo(first.get(7));
  }

  /** Fewer rows than estimated, but not far: the index sized for the estimate is kept. */
  @Test
  void anIndexIsSizedForTheEstimateBeforeTheFirstRow() {
    TableSchema items = table("items");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items), (images, duplicates) -> installed.addAll(images));
    List<byte[]> rows = new ArrayList<>();
    for (int id = 1; id <= 3000; id++) {
      rows.add(bytes(id, "v" + id));
    }
    load.sizes(List.of(new TableSize(items, 5000, rows.subList(0, TableSize.FIRST_ROWS))));
    rows.forEach(row -> load.row(items, row));
    load.install();

    TableImage grown = new TableImage(items);
    rows.forEach(grown::put);
    assertThat(single(installed).indexBytes())
        .isEqualTo(new TableImage(items, 5000).indexBytes())
        .isGreaterThan(grown.indexBytes());
    assertThat(single(installed).size()).isEqualTo(3000);
  }

  /** Rows are put a run at a time: a table of more than one run, then another, all of them. */
  @Test
  void everyRowOfTablesLongerThanARunIsInstalledInItsTablesImage() {
    TableSchema items = table("items");
    TableSchema tags = table("tags");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items, tags), (images, duplicates) -> installed.addAll(images));
    int itemCount = RowTableLoad.RUN + 1001;
    for (int id = 1; id <= itemCount; id++) {
      load.row(items, bytes(id, "i" + id));
    }
    for (int id = 1; id <= 700; id++) {
      load.row(tags, bytes(id, "t" + id));
    }
    load.install();

    assertThat(installed)
        .extracting(TableImage::name)
        .containsExactly("public.items", "public.tags");
    assertThat(installed.get(0).size()).isEqualTo(itemCount);
    assertThat(installed.get(1).size()).isEqualTo(700);
    for (int id : new int[] {1, RowTableLoad.RUN, RowTableLoad.RUN + 1, itemCount}) {
      assertThat(installed.get(0).get(FakeChangeSource.key(id))).isEqualTo(bytes(id, "i" + id));
    }
    assertThat(installed.get(1).get(FakeChangeSource.key(700))).isEqualTo(bytes(700, "t700"));
  }

  /** A big table's runs are longer (a quarter of its expected rows, here not a power of two). */
  @Test
  void everyRowOfATableExpectedToBeBigIsInstalled() {
    TableSchema items = table("items");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items), (images, duplicates) -> installed.addAll(images));
    int expected = 4 * RowTableLoad.RUN + 40_000;
    List<byte[]> first = new ArrayList<>();
    for (int id = 1; id <= TableSize.FIRST_ROWS; id++) {
      first.add(bytes(id, "i" + id));
    }
    load.sizes(List.of(new TableSize(items, expected, first)));
    int count = expected / 4 + 1001; // one longer run and a part of the next
    for (int id = 1; id <= count; id++) {
      load.row(items, bytes(id, "i" + id));
    }
    load.install();

    assertThat(single(installed).size()).isEqualTo(count);
    for (int id : new int[] {1, expected / 4, expected / 4 + 1, count}) {
      assertThat(single(installed).get(FakeChangeSource.key(id))).isEqualTo(bytes(id, "i" + id));
    }
  }

  /**
   * Rows that share a key with another (a PostgreSQL parent's key does not bind its children) are
   * counted per table, also across runs: the image keeps one row per key.
   */
  @Test
  void rowsBeyondOnePerKeyAreCountedPerTable() {
    TableSchema items = table("items");
    TableSchema tags = table("tags");
    java.util.Map<String, Long> counted = new java.util.HashMap<>();
    SnapshotImages load =
        new SnapshotImages(
            List.of(items, tags), (images, duplicates) -> counted.putAll(duplicates));
    for (int id = 1; id <= RowTableLoad.RUN + 10; id++) {
      load.row(items, bytes(id, "parent"));
    }
    load.row(items, bytes(5, "child")); // in the second run, its key's row in the first
    load.row(items, bytes(RowTableLoad.RUN + 10, "child"));
    load.row(items, bytes(RowTableLoad.RUN + 10, "grandchild"));
    load.row(tags, bytes(1, "t"));
    load.install();
    assertThat(counted).containsOnly(entry("public.items", 3L), entry("public.tags", 0L));
  }

  /**
   * A table the source described again in its snapshot, altered since the load began, comes in its
   * new columns, sized or not: its image takes them. Before, the first row failed the start.
   */
  @Test
  void aTableAlteredSinceTheLoadBeganIsLoadedInTheColumnsItComesIn() {
    TableSchema items = table("items");
    TableSchema tags = table("tags");
    List<ColumnInfo> wider = new ArrayList<>(items.columns());
    wider.add(new ColumnInfo("note", "text", ColumnKind.STRING));
    TableSchema newItems = new TableSchema(items.id(), wider, items.primaryKey());
    TableSchema newTags = new TableSchema(tags.id(), wider, tags.primaryKey());
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items, tags), (images, duplicates) -> installed.addAll(images));
    byte[] item = Rows.bytes(newItems, FakeChangeSource.row(1, "one").put("note", "n"));
    byte[] tag = Rows.bytes(newTags, FakeChangeSource.row(2, "two").put("note", "m"));
    load.sizes(List.of(new TableSize(newItems, 1, List.of(item)))); // tags: no sizes
    load.row(newItems, item);
    load.row(newTags, tag);
    load.install();

    assertThat(installed).extracting(TableImage::schema).containsExactly(newItems, newTags);
    assertThat(installed.get(0).get(FakeChangeSource.key(1))).isEqualTo(item);
    assertThat(installed.get(1).get(FakeChangeSource.key(2))).isEqualTo(tag);
  }

  @Test
  void aRowNotOfItsTablesFormIsRefusedWhenHandedOver() {
    TableSchema items = table("items");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load =
        new SnapshotImages(List.of(items), (images, duplicates) -> installed.addAll(images));
    load.row(items, bytes(1, "one"));
    byte[] whole = bytes(2, "two");
    byte[] cut = Arrays.copyOf(whole, whole.length - 2);

    assertThatThrownBy(() -> load.row(items, cut)).isInstanceOf(MalformedRowException.class);
    assertThat(installed).isEmpty();
  }

  private static TableImage single(Collection<TableImage> images) {
    assertThat(images).hasSize(1);
    return images.iterator().next();
  }
}
