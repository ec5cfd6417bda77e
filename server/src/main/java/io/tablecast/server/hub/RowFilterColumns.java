package io.tablecast.server.hub;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.image.TableImage;

/**
 * Whether a principal's row filter ({@code auth.principals[].row_filter}) can be applied to a
 * table: its column must be one of the table's. A table without it was served empty to the
 * principal (no row matches), and a table whose column was dropped while served went on showing the
 * rows its mirrors held, with no change after: both are refused instead, naming the column.
 */
final class RowFilterColumns {

  private RowFilterColumns() {}

  /**
   * The refusal of {@code image}'s table to {@code s} when its principal's row filter reads a
   * column the table lacks; null when the filter can be applied (or there is none).
   */
  static Message.Error refusal(Subscriber s, TableImage image) {
    String column = s.policy().filterColumn();
    if (column == null) {
      return null;
    }
    for (ColumnInfo c : image.schema().columns()) {
      if (c.name().equals(column)) {
        return null;
      }
    }
    return new Message.Error(
        ErrorCode.ACCESS_DENIED,
        "the row_filter of principal '"
            + s.principal()
            + "' reads column '"
            + column
            + "', which table '"
            + image.name()
            + "' does not have (renamed or dropped?): none of its rows can be shown to this"
            + " principal until its policy or the table is mended",
        image.name());
  }
}
