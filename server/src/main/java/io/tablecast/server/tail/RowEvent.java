package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;

/**
 * One committed row change read from the outbox, with row images already normalized to the
 * JSON forms of {@code docs/TYPES.md}.
 *
 * <p>A table-wide TRUNCATE (PostgreSQL statement trigger, outbox op {@code T}) is represented
 * as a {@link Op#DELETE} with neither row image: see {@link #truncate(String)}. The hub expands
 * it into one DELETE per row its image holds, so the protocol knows no truncate.
 *
 * @param table qualified table name
 * @param op the operation
 * @param before the row before the change (UPDATE, DELETE), else null
 * @param after the row after the change (INSERT, UPDATE), else null
 */
public record RowEvent(String table, Op op, ObjectNode before, ObjectNode after) {

  /** The outbox op code of a TRUNCATE (never sent on the wire). */
  public static final String TRUNCATE_CODE = "T";

  /**
   * The outbox op code that asks for the table to be re-read in the same snapshot (a change rows
   * cannot describe, such as a TRUNCATE of one partition): see {@link CommittedBatch.Purpose#RESYNC}.
   */
  public static final String RESYNC_CODE = "R";

  /** Every row of {@code table} was removed: a DELETE without a before image. */
  public static RowEvent truncate(String table) {
    return new RowEvent(table, Op.DELETE, null, null);
  }

  /** True for the {@link #truncate(String)} form. */
  public boolean isTruncate() {
    return op == Op.DELETE && before == null && after == null;
  }
}
