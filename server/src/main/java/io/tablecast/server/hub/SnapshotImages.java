package io.tablecast.server.hub;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.TailSink;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Images of the tables of one snapshot read ({@link ChangeHub#snapshotLoad}), filled by the tail
 * loop with the snapshot's rows and then installed whole.
 */
final class SnapshotImages implements TailSink.SnapshotLoad {

  private final Map<String, TableImage> loading = new LinkedHashMap<>();
  private final Consumer<Collection<TableImage>> install;

  /** The table of the last row and its image: a source reads one table after the other. */
  private TableSchema lastTable;

  private TableImage lastImage;

  /**
   * @param install installs the loaded images, blocking until done
   */
  SnapshotImages(List<TableSchema> tables, Consumer<Collection<TableImage>> install) {
    for (TableSchema t : tables) {
      loading.put(t.id().qualified(), new TableImage(t));
    }
    this.install = install;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // identity: no name built per row
  public void row(TableSchema table, byte[] row) {
    if (table != lastTable) {
      lastImage = loading.get(table.id().qualified());
      lastTable = table;
    }
    lastImage.put(row);
  }

  @Override
  public void install() {
    install.accept(loading.values());
  }
}
