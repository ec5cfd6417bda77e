package io.tablecast.protocol.row;

import java.util.Arrays;

/**
 * A whole table's rows put into a {@link RowTable} a run at a time ({@link RowTable#putAll}), as a
 * snapshot read or a conversion after ALTER TABLE fills one: {@link #RUN} rows a run, or a quarter
 * of a bigger table's expected rows up to {@link #MAX_RUN}, so that a run still writes several rows
 * into each card of a big index (docs/BENCHMARKS.md, "Server start: a snapshot's rows put page by
 * page"). A row given is in the table once its run is put: {@link #add} puts each full run, {@link
 * #finish} the rest. Not thread-safe, as the table.
 */
public final class RowTableLoad {
  /** Rows a run, at least: 2 MiB of references and hashes. */
  public static final int RUN = 1 << 18;

  /** Rows a run, at most: 16 MiB of references and hashes. */
  public static final int MAX_RUN = 1 << 21;

  private final RowTable table;
  private final int limit;

  /** The rows given and not yet put, and the hashes of their keys; grown as needed to the limit. */
  private byte[][] rows = new byte[1024][];

  private int[] keyHashes = new int[1024];
  private int length;

  /** A load of about {@code expectedRows} rows (0 when unknown) into {@code table}. */
  public RowTableLoad(RowTable table, long expectedRows) {
    this.table = table;
    this.limit = (int) Math.max(RUN, Math.min(MAX_RUN, expectedRows / 4));
  }

  /** Adds a row; a run is put when full. */
  public void add(byte[] row) {
    rows[length] = row;
    keyHashes[length] = KeyHash.ofRowKey(row);
    if (++length == rows.length) {
      if (length < limit) { // a small table takes a small buffer
        int grown = Math.min(length * 2, limit);
        rows = Arrays.copyOf(rows, grown);
        keyHashes = Arrays.copyOf(keyHashes, grown);
      } else {
        finish();
      }
    }
  }

  /** Puts the rows added since the last run was put. */
  public void finish() {
    if (length > 0) {
      table.putAll(rows, keyHashes, length);
      Arrays.fill(rows, 0, length, null);
      length = 0;
    }
  }
}
