package io.tablecast.protocol.row;

import java.nio.charset.StandardCharsets;

/**
 * {@link TextValues} for texts given as UTF-8 slices ({@link TextSlices}): the same texts taken,
 * the same bytes written, with no {@code String} made for a value (but for a STRING with a byte
 * outside ASCII, made as a decoder of the row's texts would make it). How a whole PostgreSQL table
 * read with {@code COPY} reaches its row form (docs/BENCHMARKS.md, "Server start: rows written from
 * COPY's bytes").
 */
final class SliceValues {
  private SliceValues() {}

  /**
   * {@link RowForm#encodeTexts(TextSlices)}: the row form of {@code row}, or null when a text is
   * not one {@link TextValues#writes} takes, a key column is NULL or the key is 128 bytes or
   * longer.
   */
  static byte[] encode(RowLayout layout, TextSlices row) {
    if (row.columns() != layout.names.length) {
      throw new IllegalArgumentException(
          row.columns() + " column texts for the " + layout.names.length + " columns");
    }
    RowSink out = RowSink.borrow();
    try {
      out.write(0); // the key's length, a one-byte varint: set once the key is written
      for (int column : layout.keyColumns) {
        if (row.isNull(column) || !write(layout.forms[column], row, column, out)) {
          return null;
        }
      }
      int keyLength = out.size() - 1;
      if (keyLength >= 0x80) {
        return null;
      }
      out.set(0, keyLength);
      int bitmap = out.size();
      for (int i = 0; i < layout.bitmapBytes; i++) {
        out.write(0);
      }
      int[] others = layout.otherColumns;
      for (int j = 0; j < others.length; j++) {
        int column = others[j];
        if (row.isNull(column)) {
          out.setBit(bitmap + (j >>> 3), j & 7);
        } else if (!write(layout.forms[column], row, column, out)) {
          return null;
        }
      }
      return out.toByteArray();
    } finally {
      out.giveBack();
    }
  }

  /** Writes a non-NULL text as {@link TextValues#write} does; false when that would refuse it. */
  private static boolean write(ValueForm form, TextSlices row, int column, RowSink out) {
    byte[] b = row.bytes();
    int from = row.start(column);
    int to = row.end(column);
    switch (form) {
      case INTEGER:
        if (!isPlainInteger(b, from, to)) {
          return false;
        }
        Varints.writeSigned(out, plainInteger(b, from, to));
        return true;
      case DECIMAL:
        if (!isCompactPlainDecimal(b, from, to)) {
          return false;
        }
        ValueBytes.writeParameter(out, (long) decimalScale(b, from, to) << 1);
        Varints.writeSigned(out, unscaled(b, from, to));
        return true;
      case STRING:
        if (isAscii(b, from, to)) {
          Varints.writeUnsigned(out, to - from);
          out.write(b, from, to - from);
        } else {
          TextForms.writeUtf8(out, new String(b, from, to - from, StandardCharsets.UTF_8));
        }
        return true;
      case BOOLEAN:
        if (isBooleanWord(b, from, to)) {
          out.write(b[from] == 't' ? 1 : 0);
        } else if (isPlainInteger(b, from, to)) {
          out.write(plainInteger(b, from, to) != 0 ? 1 : 0);
        } else {
          return false;
        }
        return true;
      default:
        return false;
    }
  }

  private static boolean isAscii(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }

  /** {@code TextValues.isPlainInteger}: at most 18 digits, no leading zero, no {@code -0}. */
  private static boolean isPlainInteger(byte[] b, int from, int to) {
    int first = to > from && b[from] == '-' ? from + 1 : from;
    int digits = to - first;
    if (digits < 1 || digits > TextValues.MAX_DIGITS) {
      return false;
    }
    if (b[first] == '0' && (digits > 1 || first > from)) {
      return false; // 007, -0
    }
    for (int i = first; i < to; i++) {
      if (!isDigit(b[i])) {
        return false;
      }
    }
    return true;
  }

  private static long plainInteger(byte[] b, int from, int to) {
    boolean negative = b[from] == '-';
    long value = 0;
    for (int i = negative ? from + 1 : from; i < to; i++) {
      value = value * 10 + (b[i] - '0');
    }
    return negative ? -value : value;
  }

  private static boolean isBooleanWord(byte[] b, int from, int to) {
    int n = to - from;
    if (n == 1) {
      return b[from] == 't' || b[from] == 'f';
    }
    return n == 4 ? matches(b, from, "true") : n == 5 && matches(b, from, "false");
  }

  private static boolean matches(byte[] b, int from, String word) {
    for (int i = 0; i < word.length(); i++) {
      if (b[from + i] != word.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** {@link DecimalText#isCompactPlain} of the slice's text. */
  private static boolean isCompactPlainDecimal(byte[] b, int from, int to) {
    int i = to > from && b[from] == '-' ? from + 1 : from;
    int intStart = i;
    int digits = 0;
    boolean nonZero = false;
    while (i < to && isDigit(b[i])) {
      nonZero |= b[i] != '0';
      i++;
      digits++;
    }
    int intDigits = i - intStart;
    if (intDigits == 0 || (intDigits > 1 && b[intStart] == '0')) {
      return false;
    }
    if (i < to) {
      if (b[i] != '.' || i == to - 1) {
        return false;
      }
      for (i++; i < to; i++) {
        if (!isDigit(b[i])) {
          return false;
        }
        nonZero |= b[i] != '0';
        digits++;
      }
    }
    return digits <= DecimalText.MAX_COMPACT_DIGITS && (nonZero || intStart == from);
  }

  private static long unscaled(byte[] b, int from, int to) {
    boolean negative = b[from] == '-';
    long v = 0;
    for (int i = negative ? from + 1 : from; i < to; i++) {
      if (b[i] != '.') {
        v = v * 10 + (b[i] - '0');
      }
    }
    return negative ? -v : v;
  }

  private static int decimalScale(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '.') {
        return to - i - 1;
      }
    }
    return 0;
  }
}
