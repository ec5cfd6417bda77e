package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * Whole committed transactions read in one consistent read of the outbox, in an order that keeps
 * every row's changes in commit order.
 *
 * @param events the changes; empty when nothing committed
 * @param captureMillis the outbox {@code created_at} of the newest event (epoch millis), or 0
 * @param tableReads whole tables read in the same consistent read as the events: the table's image
 *     after applying {@code events} must equal each of them
 * @param staleness tables found not to be followed any more, or followed again, by this read
 */
public record CommittedBatch(
    List<RowEvent> events,
    long captureMillis,
    List<TableRead> tableReads,
    List<Staleness> staleness) {
  public static final CommittedBatch EMPTY = new CommittedBatch(List.of(), 0);

  public CommittedBatch {
    events = List.copyOf(events);
    tableReads = List.copyOf(tableReads);
    staleness = List.copyOf(staleness);
  }

  public CommittedBatch(List<RowEvent> events, long captureMillis, List<TableRead> tableReads) {
    this(events, captureMillis, tableReads, List.of());
  }

  public CommittedBatch(List<RowEvent> events, long captureMillis) {
    this(events, captureMillis, List.of());
  }

  /** This batch with {@code read} after its table reads. */
  public CommittedBatch withTableRead(TableRead read) {
    List<TableRead> reads = new ArrayList<>(tableReads);
    reads.add(read);
    return new CommittedBatch(events, captureMillis, reads, staleness);
  }

  /** True when there is neither an event, nor a table read, nor a change of a table's staleness. */
  public boolean isEmpty() {
    return events.isEmpty() && tableReads.isEmpty() && staleness.isEmpty();
  }

  /**
   * One reason for a table's mirrors not to follow it, found or gone: {@code reason} non-null marks
   * {@code table} stale for {@code cause} (e.g. one row that could not be read, the cause naming
   * its key), null clears that cause. A table is stale while any cause holds.
   */
  public record Staleness(String table, String cause, String reason) {}

  /** Why a whole table was read with the batch. */
  public enum Purpose {
    /**
     * A periodic check that the image equals the table: any difference is drift the triggers did
     * not capture, repaired and counted as a repair ({@code tablecast.reconcile.repairs}).
     */
    RECONCILE,
    /**
     * The capture said the table changed in a way rows cannot describe (a partition truncated,
     * attached or detached; a child table's TRUNCATE): the difference is the change itself,
     * published and counted as a resync ({@code tablecast.resyncs}), not as a repair.
     */
    RESYNC
  }

  /**
   * The rows of one table as the database holds them at the batch's position.
   *
   * @param schema the table as described now (differs from the image's after an ALTER TABLE)
   * @param rows every row, in the row form of {@code schema} like the snapshot; or, with a {@code
   *     chunk}, the rows of one key range
   * @param purpose why it was read
   * @param chunk null when {@code rows} is the whole table (a resync); for a reconciliation, where
   *     this key range lies in a pass over the table in key order
   */
  public record TableRead(TableSchema schema, List<byte[]> rows, Purpose purpose, Chunk chunk) {
    public TableRead {
      rows = List.copyOf(rows);
      if ((chunk != null) != (purpose == Purpose.RECONCILE)) {
        throw new IllegalArgumentException(
            "a reconciliation reads a key range, a resync the whole table: "
                + purpose
                + (chunk == null ? " without" : " with")
                + " a key range");
      }
    }

    /** The whole table. */
    public TableRead(TableSchema schema, List<byte[]> rows, Purpose purpose) {
      this(schema, rows, purpose, null);
    }
  }

  /**
   * One key range of a pass over a table in primary-key order, each range read in the snapshot of a
   * later batch. The rows read must equal the image's rows of the same keys; a row of the image
   * that no range of a pass contained, and that no change touched during the pass, is no longer in
   * the table.
   *
   * @param first the range starts at the table's lowest key (a new pass)
   * @param last the range ends past the table's highest key (the pass is complete)
   */
  public record Chunk(boolean first, boolean last) {}
}
