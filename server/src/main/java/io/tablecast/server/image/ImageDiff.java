package io.tablecast.server.image;

import io.tablecast.protocol.row.RowForm;
import io.tablecast.protocol.row.RowTable;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The events that make an image agree with a read of its table: a whole table read ({@link #of}),
 * or the rows a reconciliation pass did not see ({@link #unmarked}). Reads the image's rows, never
 * changes them; the hub thread publishes the events, which change the image as any change does.
 */
final class ImageDiff {

  private ImageDiff() {}

  /**
   * DELETE for keys only in {@code rows}, UPDATE for rows that differ (for every row, with {@code
   * everyRow}), INSERT for keys only in {@code actual} (every row of the table read at the image's
   * position, in its row form).
   */
  static ReadDifferences of(
      TableImage image, RowTable rows, List<byte[]> actual, boolean everyRow) {
    RowTable keys = new RowTable(actual.size());
    List<RowEvent> upserts = upserts(image, rows, actual, keys, everyRow);
    List<RowEvent> out = deletesExcept(image, rows, keys);
    out.addAll(upserts);
    return new ReadDifferences(out, actual.size() - (long) keys.size());
  }

  /** A delete for each row of {@code rows} the reconciliation pass under way did not mark. */
  static List<RowEvent> unmarked(TableImage image, RowTable rows) {
    List<RowEvent> out = new ArrayList<>();
    rows.forEachUnmarked(row -> out.add(delete(image, row)));
    return out;
  }

  /**
   * INSERT or UPDATE for each row of {@code actual} (a whole table, in any order) the image lacks
   * or holds with other bytes ({@code everyRow}: an UPDATE for equal rows too), each row put in
   * {@code seen}.
   */
  private static List<RowEvent> upserts(
      TableImage image, RowTable rows, List<byte[]> actual, RowTable seen, boolean everyRow) {
    RowForm form = image.form();
    List<RowEvent> out = new ArrayList<>();
    for (byte[] row : actual) {
      form.check(row);
      byte[] key = form.keyOf(row);
      byte[] have = rows.get(key);
      boolean differs = have == null || everyRow || !Arrays.equals(have, row);
      if (differs) { // an UPDATE carries the image's row before it
        out.add(new RowEvent.Upsert(image.name(), image.schema(), key, row, have));
      }
      seen.put(differs ? row : have); // equal: the image's own array, shared
    }
    return out;
  }

  /** A delete for each row of {@code rows} whose key is not in {@code seen}. */
  private static List<RowEvent> deletesExcept(TableImage image, RowTable rows, RowTable seen) {
    RowForm form = image.form();
    List<RowEvent> out = new ArrayList<>();
    rows.forEach(
        row -> {
          if (seen.get(form.keyOf(row)) == null) {
            out.add(delete(image, row));
          }
        });
    return out;
  }

  private static RowEvent delete(TableImage image, byte[] row) {
    return new RowEvent.Delete(image.name(), image.schema(), image.form().keyOf(row), null);
  }
}
