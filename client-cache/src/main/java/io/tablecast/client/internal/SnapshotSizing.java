package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedRow;
import java.util.List;
import java.util.Locale;

/**
 * Sizes one table's snapshot against the heap as its rows arrive, so that a table too big for the
 * client's heap ends in a refusal naming it, the memory it needs and {@code -Xmx}, never in an
 * {@link OutOfMemoryError}. The rows come from {@code snapshot_begin.rowCount}; the bytes per row
 * from the first {@link #MEASURED_ROWS} rows, as the client holds them ({@link IncomingSnapshot}).
 * While the snapshot arrives: each typed mirror's object and a slot of its key index (it maps rows
 * as they arrive, into the index it keeps at the end); and, only when another mirror takes the rows
 * at the end, the row in {@link PendingRows} (a row-form row as its bytes and a slot; a JSON tree
 * whole). At its end, beside them, what each of those other mirrors builds: a generic mirror a view
 * of the same bytes and a slot, any other (a mirror of JSON rows) its object and a slot. A table
 * whose mirrors are all typed is so priced at about what its mirrors hold once it is installed.
 * Checked at the first chunk, then every {@link #CHECK_BYTES} of rows: when what the snapshot still
 * needs is more than the heap's maximum less the reserve less what is live, a full collection
 * settles it, then the snapshot is refused. Confined to the connection's event loop. Internal.
 */
final class SnapshotSizing {

  /** How the client sizes snapshots: against which heap, keeping which share of it free. */
  public record Settings(HeapRoom heap, int reservePercent) {}

  /**
   * The mirrors of the table that hold it whole: so many take the rows at the snapshot's end and
   * keep a row in the row form as a view of its bytes (generic mirrors), so many take them at the
   * end and make an object of their own (any other mirror of JSON rows), so many map each row to an
   * object of their own as it arrives (typed mirrors, {@link MirrorSink#mapsOnArrival}), whose
   * objects take {@code mappedObjectBytes} together beside the values they refer to ({@link
   * MirrorSink.MappedSnapshot#objectBytes}). The rows wait for the end only when {@code rowViews +
   * objects > 0}.
   */
  record Mirrors(int rowViews, int objects, int mapped, long mappedObjectBytes) {

    boolean rowsWait() {
      return rowViews + objects > 0;
    }
  }

  static final int MEASURED_ROWS = 1000;
  static final long CHECK_BYTES = 1 << 20;

  /** A generic mirror's {@code RowView}: header, two inherited fields, the layout, the bytes. */
  static final long ROW_VIEW_BYTES = 32;

  /** A JSON row held pending or by a version-2 mirror: beside its tree, its map's node. */
  private static final long TREE_ENTRY_BYTES = 32;

  private final String table;
  private final long rowCount;
  private final Settings settings;
  private final Mirrors mirrors;

  /** Bytes of one key slot of an index sized for the snapshot (see {@link RowIndex}). */
  private final double slotBytes;

  private long measuredRows;
  private long measuredPending;
  private long measuredInstalled;
  private long received;
  private long live;
  private long sinceCheck;
  private boolean checkedOnce;

  SnapshotSizing(String table, long rowCount, Settings settings, Mirrors mirrors) {
    this.table = table;
    this.rowCount = rowCount;
    this.settings = settings;
    this.mirrors = mirrors;
    this.live = settings.heap().used();
    // the index a mirror's rows wait in, as it is reserved for them (RowIndex.reserve)
    this.slotBytes = 12.0 * RowIndex.capacityFor(rowCount) / Math.max(1, rowCount);
  }

  /**
   * Counts a chunk of rows and their keys; returns why the snapshot must be refused, or null when
   * it still fits.
   */
  String rows(List<ObjectNode> rows, List<Object> keys) {
    for (int i = 0; i < rows.size() && measuredRows < MEASURED_ROWS; i++) {
      measure(rows.get(i), keys.get(i));
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

  private void measure(ObjectNode row, Object key) {
    measuredRows++;
    double slot = slotBytes + JsonRowBytes.key(key);
    boolean packed = row instanceof PackedRow p && p.form() != null;
    // an object of a mirror's own made at the end (a version-2 server's JSON rows: a map in a
    // generic mirror, its bytes being a tree), and the typed mirrors' objects made as it arrives
    int ownObjects = mirrors.objects() + (packed ? 0 : mirrors.rowViews());
    double object = ownObjects == 0 ? 0 : JsonRowBytes.values(row) + slot;
    double typed =
        mirrors.mapped() == 0
            ? 0
            : mirrors.mappedObjectBytes()
                + mirrors.mapped() * (JsonRowBytes.referenced(row) + slot);
    double waiting = 0;
    if (mirrors.rowsWait()) {
      waiting =
          packed
              ? JsonRowBytes.bytes(((PackedRow) row).bytes().length) + slot
              : JsonRowBytes.tree(row) + TREE_ENTRY_BYTES + slot;
    }
    measuredPending += Math.round(waiting + typed);
    measuredInstalled +=
        Math.round(
            ownObjects * object + (packed ? mirrors.rowViews() * (ROW_VIEW_BYTES + slot) : 0));
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
    return limit(settings.heap(), settings.reservePercent());
  }

  /** What the mirrors may fill of {@code heap}: its maximum less {@code reservePercent} of it. */
  static long limit(HeapRoom heap, int reservePercent) {
    long max = heap.max();
    return max - max / 100 * reservePercent;
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
        + ": what is held of a row while the snapshot arrives, then what the mirrors add at its"
        + " end) need "
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
