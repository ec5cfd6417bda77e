package io.tablecast.server.image;

import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares a table with its image one key range at a time ({@link CommittedBatch.Chunk}). Each
 * range's rows, read in the snapshot of the batch just applied, must equal the image's rows of the
 * same keys. Rows the image holds but the table no longer does cannot be found that way (the hub
 * cannot order keys as the database does), so a pass remembers every row it saw, in a range or put
 * by a change applied during the pass: at the end of the pass, a row of the image that is neither
 * is gone from the table. (A row present in the table throughout the pass lies in one of its
 * ranges; one that arrived later came with a change.) The image itself marks the rows seen, one bit
 * per slot of its index ({@link TableImage#startPass}): a pass costs no set of keys, and its end is
 * a scan of the index, not a lookup per row (on 1,000,000 rows the hub thread spent 65-155 ms there
 * with a set of keys; docs/BENCHMARKS.md). Hub thread.
 */
final class DriftPasses {
  /** The pass under way per table: the image whose rows carry its marks. */
  private final Map<String, TableImage> passes = new HashMap<>();

  /** Per pass under way, the rows its ranges read beyond one per key so far. */
  private final Map<String, Long> duplicateRows = new HashMap<>();

  /** The images were replaced (a new snapshot): every pass under way starts over. */
  void reset() {
    passes.values().forEach(TableImage::endPass);
    passes.clear();
    duplicateRows.clear();
  }

  /**
   * The events that make {@code image} agree with one range read: an INSERT or UPDATE for each row
   * read that the image lacks or holds differently and, at the end of a pass, a DELETE for each row
   * of the image the pass never saw. Does not change the image's rows. At the end of a whole pass,
   * also the rows its ranges read beyond one per key (else -1).
   */
  ReadDifferences compare(TableImage image, CommittedBatch.TableRead read) {
    CommittedBatch.Chunk chunk = read.chunk();
    String table = image.name();
    if (chunk.first()) {
      end(table);
      passes.put(table, image);
      image.startPass();
    }
    // another image (a new column list since the pass began) or none (a pass that began before a
    // new snapshot): its ranges are compared, but the pass cannot tell what is gone
    boolean whole = passes.get(table) == image;
    ReadDifferences range = upserts(image, read.rows());
    List<RowEvent> out = new ArrayList<>(range.events());
    long duplicates = duplicateRows.merge(table, range.duplicateRows(), Long::sum);
    if (chunk.last()) {
      if (whole) {
        out.addAll(image.deletesUnmarked());
      }
      end(table);
      return new ReadDifferences(out, whole ? duplicates : -1);
    }
    return new ReadDifferences(out, -1);
  }

  private void end(String table) {
    duplicateRows.remove(table);
    TableImage image = passes.remove(table);
    if (image != null) {
      image.endPass();
    }
  }

  /** True when a pass over {@code table} is under way (tests). */
  boolean inPass(String table) {
    return passes.containsKey(table);
  }

  /**
   * INSERT for each row of {@code actual} (a key range of the table read at the image's position,
   * in its row form, in key order) whose key the image lacks, UPDATE for each it holds with other
   * bytes; marks the rows it finds, for the pass under way ({@link TableImage#startPass}). Does not
   * change the image.
   *
   * <p>Rows that share a key (a PostgreSQL parent's key does not bind its inheritance children)
   * come next to each other in key order: the image holds one of them, and when it holds one of the
   * group no event is made, so that each pass does not swap one for the other and count it as
   * drift; else the last of the group is the one that differs. They are counted in {@code
   * duplicateRows}.
   */
  private static ReadDifferences upserts(TableImage image, List<byte[]> actual) {
    List<RowEvent> out = new ArrayList<>();
    long duplicates = 0;
    int n = actual.size();
    for (int i = 0; i < n; ) {
      byte[] row = actual.get(i);
      image.check(row);
      int end = i + 1;
      while (end < n && TableImage.sameKey(row, actual.get(end))) {
        image.check(actual.get(end));
        end++;
      }
      byte[] key = image.form().keyOf(row);
      byte[] have = image.markAndGet(key);
      byte[] last = actual.get(end - 1);
      boolean held = false;
      for (int j = i; j < end && have != null && !held; j++) {
        held = Arrays.equals(have, actual.get(j));
      }
      if (!held) { // an UPDATE carries the image's row before it
        out.add(new RowEvent.Upsert(image.name(), image.schema(), key, last, have));
      }
      duplicates += end - i - 1;
      i = end;
    }
    return new ReadDifferences(out, duplicates);
  }
}
