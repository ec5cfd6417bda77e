package io.tablecast.protocol.row;

import java.math.BigDecimal;

/**
 * Several columns of a row read in one walk ({@link RowForm#valuesToJava}): what a typed mirror
 * builds a record from, the columns it does not map passed without decoding.
 */
final class ChosenColumns {
  /** The largest scale read as a BigDecimal: its plain text stays within Jackson's 1,000 digits. */
  private static final int MAX_SCALE = 900;

  private ChosenColumns() {}

  static void read(
      RowLayout layout, byte[] row, boolean[] wanted, boolean[] decimals, Object[] values) {
    RowSource in = new RowSource(row, 0, row.length);
    int keyEnd = RowLayout.keyEnd(in);
    for (int column : layout.keyColumns) {
      values[column] = take(layout.forms[column], column, wanted, decimals, in);
    }
    RowLayout.expect(in, keyEnd, "the key");
    int bitmap = in.skip(layout.bitmapBytes);
    int[] others = layout.otherColumns;
    for (int j = 0; j < others.length; j++) {
      int column = others[j];
      values[column] =
          RowLayout.isNull(row, bitmap, j)
              ? null
              : take(layout.forms[column], column, wanted, decimals, in);
    }
    RowLayout.end(in);
  }

  private static Object take(
      ValueForm form, int column, boolean[] wanted, boolean[] decimals, RowSource in) {
    if (!wanted[column]) {
      form.skip(in);
      return null;
    }
    if (decimals[column] && form == ValueForm.DECIMAL) {
      BigDecimal d = compactDecimal(in);
      if (d != null) {
        return d;
      }
    }
    return form.toJava(in);
  }

  /**
   * A DECIMAL value in its compact form with a scale from 0 to {@link #MAX_SCALE} and an unscaled
   * value that fits a long (its plain text at most 922 characters, within {@link
   * RowForm#MAX_DECIMAL_TEXT}), as a BigDecimal: the same unscaled value and scale as its text
   * parsed. Otherwise null, the reader where it was.
   */
  private static BigDecimal compactDecimal(RowSource in) {
    int start = in.position();
    long header = Varints.readUnsigned(in);
    long scale = NumberForms.decimalScale(header >>> 1);
    if ((header & 1) == 0 && scale >= 0 && scale <= MAX_SCALE && Varints.fitsLong(in)) {
      return BigDecimal.valueOf(Varints.readSigned(in), (int) scale);
    }
    in.position(start);
    return null;
  }
}
