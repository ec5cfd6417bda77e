package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.TableSchema;
import java.util.List;

/**
 * Whole committed transactions read in one consistent read of the outbox, in an order that
 * keeps every row's changes in commit order.
 *
 * @param events the changes; empty when nothing committed
 * @param captureMillis the outbox {@code created_at} of the newest event (epoch millis), or 0
 * @param reconciliation every row of one table read in the same consistent read as the events,
 *     or null: the table's image after applying {@code events} must equal it
 */
public record CommittedBatch(List<RowEvent> events, long captureMillis, Reconciliation reconciliation) {
  public static final CommittedBatch EMPTY = new CommittedBatch(List.of(), 0);

  public CommittedBatch {
    events = List.copyOf(events);
  }

  public CommittedBatch(List<RowEvent> events, long captureMillis) {
    this(events, captureMillis, null);
  }

  /** True when there is neither an event nor a reconciliation. */
  public boolean isEmpty() {
    return events.isEmpty() && reconciliation == null;
  }

  /**
   * The rows of one table as the database holds them at the batch's position.
   *
   * @param schema the table as described now (differs from the image's after an ALTER TABLE)
   * @param rows every row, normalized like the snapshot
   */
  public record Reconciliation(TableSchema schema, List<ObjectNode> rows) {
    public Reconciliation {
      rows = List.copyOf(rows);
    }
  }
}
