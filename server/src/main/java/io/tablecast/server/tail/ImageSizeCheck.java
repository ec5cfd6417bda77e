package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sizes the cached tables' images against the heap while the initial snapshot loads them, so that
 * tables too big for the heap end in a refusal naming them, the memory they need and the setting to
 * change, never in an {@link OutOfMemoryError}. Passes each row on to the images it loads.
 *
 * <p>Before the first row ({@link #sizes}): each table's rows are the catalog's estimate, its bytes
 * per row those of its first rows as the image stores them; when all the tables together need more
 * than the heap can give, every table is named at once. While rows arrive ({@link #row}): the bytes
 * per row become those of the rows loaded, a table with more rows than estimated counts what it
 * holds, and every {@link #CHECK_BYTES} the images still to load are compared with the room left,
 * so a wrong estimate ends in the same kind of refusal.
 *
 * <p>The room: the heap's maximum less {@code heap_reserve_percent} of it (kept for serving) less
 * what is live. Live is what the heap measured last plus the rows loaded since; the heap's cheap
 * reading counts garbage, so a full collection settles it before any refusal, at most once every
 * 1/64 of the room while loading. Tail thread only.
 */
final class ImageSizeCheck implements ChangeSource.SnapshotSink {
  private static final Logger LOG = LoggerFactory.getLogger(ImageSizeCheck.class);

  /**
   * Heap bytes of one slot of an image's key index ({@code RowTable}: a row reference and a hash,
   * 16 slots at least, at most three quarters full, doubled when fuller).
   */
  static final int INDEX_SLOT_BYTES = 8;

  /** How many bytes of rows are loaded between two comparisons with the room left. */
  static final long CHECK_BYTES = 1 << 20;

  /** Where users give the server more heap (bin/tablecast and the systemd unit read it). */
  static final String HEAP_VARIABLE = "TABLECAST_JAVA_OPTS";

  private final HeapRoom heap;
  private final int reservePercent;
  private ChangeSource.SnapshotSink images;
  private final Map<String, Tally> tables = new LinkedHashMap<>();

  /** Bytes live: measured, plus the rows loaded since. */
  private long live;

  /** Bytes of rows loaded since {@link #live} was measured after a full collection. */
  private long sinceCollection = Long.MAX_VALUE / 2; // never: the first shortage may collect

  private long sinceCheck;

  /** The table whose rows came last. */
  private Tally current;

  /** The table of the last row, whose tally is {@link #current}. */
  private TableSchema currentTable;

  /**
   * @param heap the heap the images live in
   * @param reservePercent the share of its maximum kept for serving ({@code heap_reserve_percent})
   * @param schemas the cached tables, in the order of the read
   * @param images where the rows go
   */
  ImageSizeCheck(
      HeapRoom heap,
      int reservePercent,
      List<TableSchema> schemas,
      ChangeSource.SnapshotSink images) {
    this.heap = heap;
    this.reservePercent = reservePercent;
    this.images = images;
    for (TableSchema s : schemas) {
      tables.put(s.id().qualified(), new Tally(s.id().qualified()));
    }
    this.live = heap.used();
  }

  /**
   * Bytes a row's array takes in an image: a 16-byte header and the row, rounded up to 8 bytes (as
   * {@code TableImage.rowBytes} counts).
   */
  static long rowBytes(byte[] row) {
    return (16L + row.length + 7) & ~7L;
  }

  /** Slots of an image's key index holding {@code rows} rows (as {@code RowTable} sizes it). */
  static long indexSlots(long rows) {
    // no smaller power of two can do (it is at most rows / 2): one or two doublings from here,
    // rather than twenty per row of a million-row table
    long slots = Math.max(16, Long.highestOneBit(rows));
    while (slots * 3 / 4 < rows) {
      slots <<= 1;
    }
    return slots;
  }

  /** Bytes of the key index of an image of {@code rows} rows. */
  static long indexBytes(long rows) {
    return indexSlots(rows) * INDEX_SLOT_BYTES;
  }

  /**
   * The most the key index takes on the way to {@code rows} rows: at its last doubling, the new
   * arrays and the old ones (half as long) at once.
   */
  static long indexPeakBytes(long rows) {
    long slots = indexSlots(rows);
    return (slots + (slots > 16 ? slots / 2 : 0)) * INDEX_SLOT_BYTES;
  }

  /**
   * What the source knows of the tables before reading them: refuses them all at once when their
   * images need more than the heap can give.
   *
   * @throws HeapTooSmallException naming every table, the memory needed and the heap to give
   */
  @Override
  public void sizes(List<TableSize> sizes) {
    for (TableSize s : sizes) {
      Tally t = tally(s.table().id().qualified());
      t.estimated = s.estimatedRows();
      t.whole = s.whole();
      t.firstRows = s.firstRows().size();
      t.expected = s.expectedRows();
      for (byte[] row : s.firstRows()) {
        t.firstBytes += rowBytes(row);
      }
    }
    long need = toLoad();
    live = heap.used();
    if (live + need > limit()) {
      collect();
      if (live + need > limit()) {
        throw new HeapTooSmallException(startRefusal(need));
      }
    }
    LOG.info(
        "the images of the cached tables need about {} (estimated from the catalog and their first"
            + " rows); the heap can give them {}",
        bytes(need),
        room());
    images.sizes(sizes);
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // identity first, the name when it differs
  public void row(TableSchema table, byte[] row) {
    Tally t = current;
    if (table != currentTable) { // by identity first: no name built per row
      if (t == null || !t.name.equals(table.id().qualified())) {
        if (t != null) {
          t.done = true; // the source reads one table after the other
        }
        t = tally(table.id().qualified());
        current = t;
      }
      currentTable = table;
    }
    long bytes = rowBytes(row);
    long index = indexBytes(t.loaded);
    t.loaded++;
    t.bytes += bytes;
    bytes += indexBytes(t.loaded) - index; // the index doubled
    live += bytes;
    sinceCollection += bytes;
    sinceCheck += bytes;
    if (sinceCheck >= CHECK_BYTES) {
      sinceCheck = 0;
      check(t);
    }
    images.row(table, row);
  }

  /** Compares what is still to load with the room left; refuses when a collection confirms it. */
  private void check(Tally t) {
    long need = toLoad();
    if (live + need <= limit() || sinceCollection < limit() / 64) {
      return;
    }
    collect();
    if (live + need > limit()) {
      throw new HeapTooSmallException(loadRefusal(t, need));
    }
  }

  /**
   * The refusal to give when the heap ran out all the same (a few rows far larger than those
   * measured): names the table being loaded. Lets go of the images first, so that the message can
   * be made.
   */
  HeapTooSmallException outOfMemory(OutOfMemoryError e) {
    images = null;
    Tally t = current;
    return new HeapTooSmallException(
        "the heap ran out while loading "
            + (t == null ? "the cached tables" : t.name + " (" + t.describeLoaded() + ")")
            + "; "
            + moreHeap(heap.max() + heap.max() / 2),
        e);
  }

  private void collect() {
    live = heap.usedAfterCollection();
    sinceCollection = 0;
  }

  /** What the images may take in all: the heap's maximum less the reserve. */
  private long limit() {
    long max = heap.max();
    return max - max / 100 * reservePercent;
  }

  /** Bytes of the rows still to load, every table's by its own bytes per row. */
  private long toLoad() {
    long sum = 0;
    for (Tally t : tables.values()) {
      sum += t.toLoad();
    }
    return sum;
  }

  private Tally tally(String name) {
    return tables.computeIfAbsent(name, Tally::new);
  }

  private String startRefusal(long need) {
    List<String> lines = new ArrayList<>();
    for (Tally t : tables.values()) {
      lines.add("  " + t.name + ": " + t.describeNeed());
    }
    return "the cached tables do not fit in the heap: their images need about "
        + bytes(need)
        + ", the heap can give them "
        + room()
        + "; "
        + moreHeap(live + need)
        + ", or cache fewer tables or columns (cached_tables, columns, exclude_columns). "
        + "Per table:\n"
        + String.join("\n", lines);
  }

  private String loadRefusal(Tally t, long need) {
    return "table "
        + t.name
        + " does not fit in the heap: "
        + t.describeLoaded()
        + (t.loaded < t.expected()
            ? "; the rows still to load need about " + bytes(need) + ", the heap can give "
            : "; more rows than the catalog estimated: the next "
                + count(t.projected() - t.loaded)
                + " rows need "
                + bytes(need)
                + ", the heap can give ")
        + room()
        + "; "
        + moreHeap(live + need)
        + ", or cache fewer tables or columns (cached_tables, columns, exclude_columns)";
  }

  /** What the heap can still give the images, and why. */
  private String room() {
    long max = heap.max();
    return bytes(Math.max(0, limit() - live))
        + " (maximum heap "
        + bytes(max)
        + ", "
        + bytes(live)
        + " in use, "
        + reservePercent
        + " % kept for serving: heap_reserve_percent)";
  }

  /** The heap to give for {@code live} bytes of images and the rest, and where to set it. */
  private String moreHeap(long live) {
    long mib = ((live / (100 - reservePercent) * 100) >> 20) + 1;
    long step = mib < 1024 ? 64 : 256;
    long xmx = (mib + step - 1) / step * step;
    return "start the server with at least -Xmx"
        + xmx
        + "m ("
        + HEAP_VARIABLE
        + "=-Xmx"
        + xmx
        + "m for bin/tablecast and the systemd unit)";
  }

  static String bytes(long n) {
    if (n >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
    }
    if (n >= 1L << 20) {
      return String.format(Locale.ROOT, "%d MiB", n >> 20);
    }
    return String.format(Locale.ROOT, "%d KiB", (n + 1023) >> 10);
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** One table's rows: estimated, read ahead, loaded. */
  private static final class Tally {
    final String name;
    long estimated = -1;
    boolean whole;

    /** All its rows are loaded: the rows of the next table came. */
    boolean done;

    long firstRows;

    /** The rows the table is expected to have ({@link TableSize#expectedRows}; 0 unknown). */
    long expected;

    long firstBytes;
    long loaded;
    long bytes;

    Tally(String name) {
      this.name = name;
    }

    /** The rows the table is expected to have: exact when read ahead whole. */
    long expected() {
      return expected;
    }

    /**
     * The rows to make room for: those expected, or, for a table that has more than expected, as
     * many as make its key index double once more.
     */
    long projected() {
      long expected = expected();
      if (loaded < expected) {
        return expected;
      }
      return done || whole ? loaded : indexSlots(loaded) * 3 / 4 + 1;
    }

    long bytesPerRow() {
      if (loaded > 0 && loaded >= firstRows) {
        return bytes / loaded;
      }
      return firstRows > 0 ? firstBytes / firstRows : 0;
    }

    /** Bytes the rows still to load take, with the growth of the key index. */
    long toLoad() {
      long projected = projected();
      return (projected - loaded) * bytesPerRow() + indexPeakBytes(projected) - indexBytes(loaded);
    }

    String estimate() {
      if (whole) {
        return count(firstRows) + " rows";
      }
      return estimated < 0
          ? "at least " + count(firstRows) + " rows (the catalog has no estimate: ANALYZE it)"
          : "about " + count(expected()) + " rows (catalog estimate)";
    }

    String describeNeed() {
      return estimate()
          + " x "
          + bytesPerRow()
          + " bytes a row (measured on its first "
          + count(firstRows)
          + ") + "
          + bytes(indexPeakBytes(expected()))
          + " of key index = "
          + bytes(expected() * bytesPerRow() + indexPeakBytes(expected()));
    }

    String describeLoaded() {
      return count(loaded)
          + " rows loaded of "
          + (estimated < 0 && !whole ? "an unknown number" : count(expected()))
          + ", "
          + bytesPerRow()
          + " bytes a row, "
          + bytes(bytes)
          + " so far";
    }
  }
}
