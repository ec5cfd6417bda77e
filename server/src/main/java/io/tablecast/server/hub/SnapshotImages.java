package io.tablecast.server.hub;

import io.tablecast.protocol.row.RowTableLoad;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.TableSize;
import io.tablecast.server.tail.TailSink;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Images of the tables of one snapshot read ({@link ChangeHub#snapshotLoad}), filled by the tail
 * loop with the snapshot's rows and then installed whole.
 *
 * <p>Rows are checked as they come and put a run at a time, in the order of the index pages they
 * hash to ({@link RowTableLoad}), not one by one: a million-row read outlasts a dozen young
 * collections, after which the index's pages are old, and under G1 a put of a young row into an old
 * page at a random slot dirtied a card for the concurrent refinement threads each time: 0.7-0.8 s
 * of CPU in a million-row start on 2 cores, beside the read.
 */
final class SnapshotImages implements TailSink.SnapshotLoad {

  /** An estimate above this sizes an index for this many rows (the index grows past it). */
  private static final int MAX_EXPECTED_ROWS = 1 << 28;

  private final Map<String, TableImage> loading = new LinkedHashMap<>();
  private final BiConsumer<Collection<TableImage>, Map<String, Long>> install;

  /** Per table, the rows given so far (its image holds one per key). */
  private final Map<String, Long> rowsGiven = new HashMap<>();

  /** The rows of {@link #lastImage} given since it became the last. */
  private long lastRows;

  /** The table of the last row and its image: a source reads one table after the other. */
  private TableSchema lastTable;

  private TableImage lastImage;

  /** Per table, the rows the catalog expects it to have, where it said. */
  private final Map<String, Long> expectedRows = new HashMap<>();

  /** The rows of {@link #lastImage} being put. */
  private RowTableLoad lastLoad;

  /**
   * @param install installs the loaded images, blocking until done
   */
  SnapshotImages(
      List<TableSchema> tables, BiConsumer<Collection<TableImage>, Map<String, Long>> install) {
    for (TableSchema t : tables) {
      loading.put(t.id().qualified(), new TableImage(t));
    }
    this.install = install;
  }

  /**
   * Sizes each table's key index for the rows it is expected to have, so that the snapshot puts
   * them without rehashing the rows put before (a million-row table's index grew 17 times).
   */
  @Override
  public void sizes(List<TableSize> sizes) {
    finishTable();
    for (TableSize s : sizes) {
      String name = s.table().id().qualified();
      TableImage image = loading.get(name);
      if (image != null && image.size() == 0) {
        int expected = (int) Math.min(s.expectedRows(), MAX_EXPECTED_ROWS);
        // in the table's columns as the snapshot reads them (see imageOf)
        loading.put(name, new TableImage(s.table(), expected));
        expectedRows.put(name, (long) expected);
      }
    }
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // identity: no name built per row
  public void row(TableSchema table, byte[] row) {
    if (table != lastTable) {
      finishTable();
      String name = table.id().qualified();
      lastImage = imageOf(table);
      lastLoad = lastImage.load(expectedRows.getOrDefault(name, 0L));
      lastTable = table;
    }
    lastImage.check(row);
    lastLoad.add(row);
    lastRows++;
  }

  /**
   * The image {@code table}'s rows go to, in the columns they come in: a source describes each
   * table again in its snapshot (PostgreSQL locks the tables, then describes them), so a table
   * altered since this load began comes in its new columns, and its image, still empty, is made
   * again in them. Before, its first row failed the whole start ("bytes left after the last
   * column").
   */
  private TableImage imageOf(TableSchema table) {
    String name = table.id().qualified();
    TableImage image = loading.get(name);
    if (image.size() == 0 && !image.schema().equals(table)) {
      int expected = (int) (long) expectedRows.getOrDefault(name, 0L);
      image = expected > 0 ? new TableImage(table, expected) : new TableImage(table);
      loading.put(name, image);
    }
    return image;
  }

  /** Puts the last table's rows not yet put. */
  private void finishTable() {
    if (lastLoad != null) {
      lastLoad.finish();
      lastLoad = null;
      rowsGiven.merge(lastTable.id().qualified(), lastRows, Long::sum);
      lastRows = 0;
    }
    lastTable = null;
  }

  /**
   * Installs the images, with the rows each table's read gave beyond one per key (a PostgreSQL
   * parent's key does not bind its inheritance children): the image kept one of them.
   */
  @Override
  public void install() {
    finishTable();
    loading.values().forEach(TableImage::fitIndex);
    Map<String, Long> duplicateRows = new HashMap<>();
    rowsGiven.forEach((name, given) -> duplicateRows.put(name, given - loading.get(name).size()));
    install.accept(loading.values(), duplicateRows);
  }
}
