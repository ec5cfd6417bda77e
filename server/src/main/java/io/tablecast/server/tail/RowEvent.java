package io.tablecast.server.tail;

import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import java.util.Objects;

/**
 * One committed row change read from the outbox, its rows already in the row form ({@link RowForm})
 * of the table version {@code schema} describes: computed once at capture, with the key beside
 * them, and carried as bytes from there on. The image, not the event, says whether an upsert
 * inserts or updates, and holds the row a delete removes.
 *
 * <p>A table-wide TRUNCATE (PostgreSQL statement trigger, outbox op {@code T}) is a {@link
 * Truncate}: the hub expands it into one DELETE per row its image holds, so the protocol knows no
 * truncate.
 */
public sealed interface RowEvent permits RowEvent.Upsert, RowEvent.Delete, RowEvent.Truncate {

  /** The outbox op code of a TRUNCATE (never sent on the wire). */
  String TRUNCATE_CODE = "T";

  /**
   * The outbox op code that asks for the table to be re-read in the same snapshot (a change rows
   * cannot describe, such as a TRUNCATE of one partition): see {@link
   * CommittedBatch.Purpose#RESYNC}.
   */
  String RESYNC_CODE = "R";

  /** The table's qualified name. */
  String table();

  /**
   * The operation as captured: {@link Op#UPDATE} for an upsert that carries the row before it
   * (PostgreSQL), {@link Op#INSERT} for one that does not (a new row, or a MySQL/MariaDB row's
   * state now), {@link Op#DELETE} for a delete or a truncate. The image decides what is sent.
   */
  Op op();

  /**
   * A row as it is now, inserted or replacing the row of the same key.
   *
   * @param table the table's qualified name
   * @param schema the table version whose row form {@code key}, {@code row} and {@code before} are
   *     in
   * @param key the row's primary key ({@link RowForm#keyOf} of {@code row})
   * @param row the whole row
   * @param before the whole row before an UPDATE when the capture records it (PostgreSQL), else
   *     null; its key differs from {@code key} when the UPDATE moved the row to another key
   */
  // carries immutable row-form bytes; events are never compared (the image compares the bytes)
  @SuppressWarnings("ArrayRecordComponent")
  record Upsert(String table, TableSchema schema, byte[] key, byte[] row, byte[] before)
      implements RowEvent {
    public Upsert {
      Objects.requireNonNull(schema, "schema");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(row, "row");
    }

    @Override
    public Op op() {
      return before == null ? Op.INSERT : Op.UPDATE;
    }
  }

  /**
   * The row of {@code key} is gone.
   *
   * @param table the table's qualified name
   * @param schema the table version whose row form {@code key} and {@code before} are in
   * @param key the removed row's primary key
   * @param before the whole removed row when the capture records it (PostgreSQL), else null
   *     (MySQL/MariaDB names the row by its key; the image holds the rest)
   */
  // carries immutable row-form bytes; events are never compared (the image compares the bytes)
  @SuppressWarnings("ArrayRecordComponent")
  record Delete(String table, TableSchema schema, byte[] key, byte[] before) implements RowEvent {
    public Delete {
      Objects.requireNonNull(schema, "schema");
      Objects.requireNonNull(key, "key");
    }

    @Override
    public Op op() {
      return Op.DELETE;
    }
  }

  /** Every row of {@code table} was removed. */
  record Truncate(String table) implements RowEvent {
    @Override
    public Op op() {
      return Op.DELETE;
    }
  }
}
