package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.bytes;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.TableSize;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A snapshot's images are sized for the rows the catalog estimates, and an estimate far too high
 * (statistics from before a mass delete) leaves no index of its size behind once installed.
 */
class SnapshotImagesTest {

  @Test
  void anImageSizedForAnEstimateFarTooHighIsInstalledWithAnIndexForItsRows() {
    TableSchema items = table("items");
    List<TableImage> installed = new ArrayList<>();
    SnapshotImages load = new SnapshotImages(List.of(items), installed::addAll);
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
    SnapshotImages load = new SnapshotImages(List.of(items), installed::addAll);
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

  private static TableImage single(Collection<TableImage> images) {
    assertThat(images).hasSize(1);
    return images.iterator().next();
  }
}
