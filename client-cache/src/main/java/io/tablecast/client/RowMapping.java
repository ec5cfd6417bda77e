package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.List;

/**
 * What a mirror's rows are: how a row received is turned into the mirror's row type, how a
 * re-snapshot tells an unchanged row, and what can be read back from a row held (its key by a new
 * primary key, its JSON image to seed another mirror of the table). A mirror keeps its rows and
 * nothing beside them, so whatever it needs later it reads from them. One implementation for
 * generic rows ({@link GenericRowMapping}), one for typed rows ({@link TypedRowMapping}).
 *
 * @param <V> the row type
 */
interface RowMapping<V> {

  /**
   * The row of {@code json}.
   *
   * @throws RuntimeException when it cannot be mapped to the row type
   */
  V map(ObjectNode json);

  /**
   * The row of {@code bytes} in the layout {@code form}: {@link #map} of its {@link PackedRow},
   * which a mapping that reads the bytes itself need not make (a snapshot's rows held as bytes).
   *
   * @throws RuntimeException when it cannot be mapped to the row type
   */
  default V map(RowForm form, byte[] bytes) {
    return map(PackedRow.of(form, bytes));
  }

  /**
   * Whether {@code json}, received in a re-snapshot, is the row {@code old} held: TRUE or FALSE
   * when that shows without mapping it (the row form's bytes), null otherwise.
   */
  Boolean sameImage(V old, ObjectNode json);

  /** {@link #sameImage(Object, ObjectNode)} of the row {@code bytes} in the layout {@code form}. */
  default Boolean sameImage(V old, RowForm form, byte[] bytes) {
    return sameImage(old, PackedRow.of(form, bytes));
  }

  /** Whether {@code mapped}, mapped from a re-snapshot's row, is the row {@code old} held. */
  boolean sameValue(V old, V mapped);

  /**
   * The normalized key of {@code row} by the primary-key columns {@code primaryKey}; null when the
   * row lacks one of them.
   *
   * @throws CannotRead when the row type cannot tell (a typed row lacking a key column's property)
   */
  Object keyOf(V row, List<String> primaryKey);

  /**
   * The JSON image of {@code row}, every column of {@code columns} in table order, as the server
   * would send it, to seed another mirror of the table.
   *
   * @throws CannotRead when the row type does not hold every column
   */
  ObjectNode image(V row, List<ColumnInfo> columns);

  /** A row held cannot give what was asked: the table's next snapshot has to. */
  final class CannotRead extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CannotRead(String message) {
      super(message, null, false, false);
    }
  }
}
