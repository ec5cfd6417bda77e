package io.tablecast.protocol.row;

import java.math.BigDecimal;

/**
 * Several columns of a row read in one walk ({@link RowForm#valuesToJava}): what a typed mirror
 * builds a record from, the columns it does not map passed without decoding.
 */
final class ChosenColumns {
  /**
   * The largest scale of a compact decimal ({@link DirectRead#bigDecimal}) read as a BigDecimal:
   * its plain text (an unscaled value that fits a long: at most 922 characters) stays within {@link
   * RowForm#MAX_DECIMAL_TEXT}, Jackson's limit; any other decimal is read as its text.
   */
  private static final int MAX_SCALE = 900;

  private ChosenColumns() {}

  static void read(
      RowLayout layout, byte[] row, boolean[] wanted, boolean[] decimals, Object[] values) {
    RowSource in = new RowSource(row, 0, row.length);
    int keyEnd = RowLayout.keyEnd(in);
    for (int column : layout.keyColumns) {
      values[column] = take(layout.forms[column], column, wanted, decimals, row, in);
    }
    RowLayout.expect(in, keyEnd, "the key");
    int bitmap = in.skip(layout.bitmapBytes);
    int[] others = layout.otherColumns;
    for (int j = 0; j < others.length; j++) {
      int column = others[j];
      values[column] =
          RowLayout.isNull(row, bitmap, j)
              ? null
              : take(layout.forms[column], column, wanted, decimals, row, in);
    }
    RowLayout.end(in);
  }

  private static Object take(
      ValueForm form, int column, boolean[] wanted, boolean[] decimals, byte[] row, RowSource in) {
    if (!wanted[column]) {
      form.skip(in);
      return null;
    }
    if (decimals[column] && form == ValueForm.DECIMAL) {
      BigDecimal d = DirectRead.bigDecimal(row, in.position());
      if (d != null && d.scale() <= MAX_SCALE) {
        form.skip(in); // the value just read
        return d;
      }
    }
    return form.toJava(in);
  }
}
