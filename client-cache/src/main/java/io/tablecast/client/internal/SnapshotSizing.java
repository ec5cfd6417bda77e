package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;

/**
 * Sizes one table's snapshot against the heap as its rows arrive, so that a table too big for the
 * client's heap ends in a refusal naming it, the memory it needs and {@code -Xmx}, never in an
 * {@link OutOfMemoryError}. The rows come from {@code snapshot_begin.rowCount}; the bytes per row
 * from the first {@link #MEASURED_ROWS} rows: each is held twice at the snapshot's end, as the
 * pending tree and as the mirror's row (its value, its JSON image, the map's entry). Checked at the
 * first chunk, then every {@link #CHECK_BYTES} of rows: when what the snapshot still needs is more
 * than the heap's maximum less the reserve less what is live, a full collection settles it, then
 * the snapshot is refused. Confined to the connection's event loop. Internal.
 */
final class SnapshotSizing {

  /** How the client sizes snapshots: against which heap, keeping which share of it free. */
  public record Settings(HeapRoom heap, int reservePercent) {}

  static final int MEASURED_ROWS = 1000;
  static final long CHECK_BYTES = 1 << 20;

  /** Beside a pending row's tree: its entry in the pending map and its key. */
  private static final long PENDING_ENTRY_BYTES = 40 + 24;

  /** Beside an installed row's value and image: the map's node and the row's record. */
  private static final long INSTALLED_ENTRY_BYTES = 32 + 24 + 24;

  private final String table;
  private final long rowCount;
  private final Settings settings;
  private long measuredRows;
  private long measuredPending;
  private long measuredInstalled;
  private long received;
  private long live;
  private long sinceCheck;
  private boolean checkedOnce;

  SnapshotSizing(String table, long rowCount, Settings settings) {
    this.table = table;
    this.rowCount = rowCount;
    this.settings = settings;
    this.live = settings.heap().used();
  }

  /**
   * Counts a chunk of rows; returns why the snapshot must be refused, or null when it still fits.
   */
  String rows(List<ObjectNode> rows) {
    for (ObjectNode row : rows) {
      if (measuredRows < MEASURED_ROWS) {
        long tree = JsonRowBytes.tree(row);
        measuredRows++;
        measuredPending += tree + PENDING_ENTRY_BYTES;
        // the value is counted like the tree: a typed row holds the same values
        measuredInstalled +=
            tree + JsonRowBytes.align(16 + JsonRowBytes.json(row)) + INSTALLED_ENTRY_BYTES;
      }
    }
    received += rows.size();
    long added = rows.size() * pendingPerRow();
    live += added;
    sinceCheck += added;
    if (checkedOnce && sinceCheck < CHECK_BYTES) {
      return null;
    }
    checkedOnce = true;
    sinceCheck = 0;
    long need = need();
    if (live + need <= limit()) {
      return null;
    }
    live = settings.heap().usedAfterCollection();
    return live + need <= limit() ? null : refusal(need);
  }

  private long pendingPerRow() {
    return measuredRows == 0 ? 0 : measuredPending / measuredRows;
  }

  private long installedPerRow() {
    return measuredRows == 0 ? 0 : measuredInstalled / measuredRows;
  }

  /** What the snapshot still takes: the rows to come, then every row installed beside them. */
  private long need() {
    long rows = Math.max(rowCount, received);
    return (rows - received) * pendingPerRow() + rows * installedPerRow();
  }

  private long limit() {
    long max = settings.heap().max();
    return max - max / 100 * settings.reservePercent();
  }

  private String refusal(long need) {
    long max = settings.heap().max();
    long rows = Math.max(rowCount, received);
    long mib = (((live + need) / (100 - settings.reservePercent()) * 100) >> 20) + 1;
    long step = mib < 1024 ? 64 : 256;
    long xmx = (mib + step - 1) / step * step;
    return "the snapshot of "
        + table
        + " does not fit in this client's heap: "
        + String.format(Locale.ROOT, "%,d", rows)
        + " rows at about "
        + (pendingPerRow() + installedPerRow())
        + " bytes a row (measured on the first "
        + String.format(Locale.ROOT, "%,d", measuredRows)
        + ": its tree while the snapshot arrives, its row in the mirror) need "
        + bytes(need)
        + " more, the heap can give "
        + bytes(Math.max(0, limit() - live))
        + " (maximum heap "
        + bytes(max)
        + ", "
        + bytes(live)
        + " in use, "
        + settings.reservePercent()
        + " % kept for the application: TablecastClient.Builder.heapReservePercent); start the "
        + "application with at least -Xmx"
        + xmx
        + "m, or give it fewer rows or columns (the server's columns, exclude_columns)";
  }

  static String bytes(long n) {
    if (n >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
    }
    if (n >= 1L << 20) {
      return (n >> 20) + " MiB";
    }
    return ((n + 1023) >> 10) + " KiB";
  }
}
