package io.tablecast.server.hub;

import io.tablecast.protocol.row.KeyHash;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.TableSize;
import io.tablecast.server.tail.TailSink;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Images of the tables of one snapshot read ({@link ChangeHub#snapshotLoad}), filled by the tail
 * loop with the snapshot's rows and then installed whole.
 *
 * <p>Rows are checked as they come and put a run at a time ({@link #RUN} rows, more for a big
 * table, in the order of the index pages they hash to: {@link
 * io.tablecast.protocol.row.RowTable#putAll}), not one by one: a million-row read outlasts a dozen
 * young collections, after which the index's pages are old, and under G1 a put of a young row into
 * an old page at a random slot dirtied a card for the concurrent refinement threads each time:
 * 0.7-0.8 s of CPU in a million-row start on 2 cores, beside the read.
 */
final class SnapshotImages implements TailSink.SnapshotLoad {

  /** An estimate above this sizes an index for this many rows (the index grows past it). */
  private static final int MAX_EXPECTED_ROWS = 1 << 28;

  private final Map<String, TableImage> loading = new LinkedHashMap<>();
  private final Consumer<Collection<TableImage>> install;

  /** The table of the last row and its image: a source reads one table after the other. */
  private TableSchema lastTable;

  private TableImage lastImage;

  /**
   * Rows put a run at a time, at most: {@code 2^18} (2 MiB of references and hashes), or a quarter
   * of a bigger table's expected rows up to {@link #MAX_RUN}, so that a run still writes several
   * rows into each card of a big index (16 MiB for {@code 2^21}).
   */
  static final int RUN = 1 << 18;

  static final int MAX_RUN = 1 << 21;

  /** Per table, its run's length at most ({@link #RUN} for a table without an estimate). */
  private final Map<String, Integer> runLimits = new HashMap<>();

  private int runLimit = RUN;

  /** The rows of {@link #lastImage} not yet put, and the hashes of their keys. */
  private byte[][] run = new byte[1024][];

  private int[] runHashes = new int[1024];
  private int runLength;

  /**
   * @param install installs the loaded images, blocking until done
   */
  SnapshotImages(List<TableSchema> tables, Consumer<Collection<TableImage>> install) {
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
    putRun();
    for (TableSize s : sizes) {
      String name = s.table().id().qualified();
      TableImage image = loading.get(name);
      if (image != null && image.size() == 0) {
        int expected = (int) Math.min(s.expectedRows(), MAX_EXPECTED_ROWS);
        loading.put(name, new TableImage(image.schema(), expected));
        runLimits.put(name, Math.max(RUN, Math.min(MAX_RUN, expected / 4)));
      }
    }
    lastTable = null;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // identity: no name built per row
  public void row(TableSchema table, byte[] row) {
    if (table != lastTable) {
      putRun();
      lastImage = loading.get(table.id().qualified());
      runLimit = runLimits.getOrDefault(table.id().qualified(), RUN);
      lastTable = table;
    }
    lastImage.check(row);
    run[runLength] = row;
    runHashes[runLength] = KeyHash.ofRowKey(row);
    if (++runLength == run.length) {
      if (runLength < runLimit) { // grown as needed: a small table takes a small buffer
        int length = Math.min(runLength * 2, runLimit);
        run = Arrays.copyOf(run, length);
        runHashes = Arrays.copyOf(runHashes, length);
      } else {
        putRun();
      }
    }
  }

  private void putRun() {
    if (runLength > 0) {
      lastImage.putAll(run, runHashes, runLength);
      Arrays.fill(run, 0, runLength, null);
      runLength = 0;
    }
  }

  @Override
  public void install() {
    putRun();
    loading.values().forEach(TableImage::fitIndex);
    install.accept(loading.values());
  }
}
