package io.tablecast.server.image;

import io.tablecast.protocol.row.RowTable;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares a table with its image one key range at a time ({@link CommittedBatch.Chunk}). Each
 * range's rows, read in the snapshot of the batch just applied, must equal the image's rows of the
 * same keys. Rows the image holds but the table no longer does cannot be found that way (the hub
 * cannot order keys as the database does), so a pass remembers every key it saw, in a range or in a
 * change applied during the pass: at the end of the pass, a row of the image that is neither is
 * gone from the table. (A row present in the table throughout the pass lies in one of its ranges;
 * one that arrived later came with a change.) The keys a pass saw are kept as the rows themselves
 * in a {@link RowTable} (its index finds them by the key at their start), mostly the image's own
 * arrays: a pass costs an index, not a copy of every key. Hub thread.
 */
final class DriftPasses {
  /** Keys seen so far by the pass under way, per table: rows with those keys. */
  private final Map<String, RowTable> seen = new HashMap<>();

  /** A change applied to {@code table} put {@code row} in the image. */
  void touched(String table, byte[] row) {
    RowTable keys = seen.get(table);
    if (keys != null) {
      keys.put(row);
    }
  }

  /** The images were replaced (a new snapshot): every pass under way starts over. */
  void reset() {
    seen.clear();
  }

  /**
   * The events that make {@code image} agree with one range read: an INSERT or UPDATE for each row
   * read that the image lacks or holds differently and, at the end of a pass, a DELETE for each row
   * of the image the pass never saw. Does not change the image.
   */
  List<RowEvent> compare(TableImage image, CommittedBatch.TableRead read) {
    CommittedBatch.Chunk chunk = read.chunk();
    String table = image.name();
    if (chunk.first()) {
      seen.put(table, new RowTable());
    }
    RowTable keys = seen.get(table); // null: a pass that began before a new snapshot
    List<RowEvent> out = image.upserts(read.rows(), keys != null ? keys : new RowTable());
    if (chunk.last()) {
      seen.remove(table);
      if (keys != null) {
        out.addAll(image.deletesExcept(keys));
      }
    }
    return out;
  }

  /** True when a pass over {@code table} is under way (tests). */
  boolean inPass(String table) {
    return seen.containsKey(table);
  }
}
