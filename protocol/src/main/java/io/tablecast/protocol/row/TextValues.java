package io.tablecast.protocol.row;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;

/**
 * Values written into the row form straight from the text a database prints for them, without a
 * JSON node between ({@link RowForm#encodeTexts}): a million rows of a snapshot, and every row the
 * MySQL tail reads by key, come as column texts. Only texts that are their value's one plain print
 * are taken, so that the bytes are exactly those {@link RowForm#encode} writes for the value the
 * server makes of the text: an integer of at most 18 digits without a leading zero (nor {@code
 * -0}), a decimal in its compact plain form ({@link DecimalText#isCompactPlain}), any text of a
 * STRING column, and {@code t}, {@code f}, {@code true}, {@code false} or such an integer for a
 * BOOLEAN (MySQL's {@code TINYINT(1)}: true unless 0). The caller gives any other value as a node.
 */
final class TextValues {
  /** Longer integers may not fit a long: they go through the node. */
  static final int MAX_DIGITS = 18;

  private TextValues() {}

  static boolean writes(ColumnKind kind, String text) {
    switch (kind) {
      case INTEGER:
        return isPlainInteger(text);
      case DECIMAL:
        return DecimalText.isCompactPlain(text);
      case STRING:
        return true;
      case BOOLEAN:
        return isBooleanWord(text) || isPlainInteger(text);
      default:
        return false;
    }
  }

  /**
   * Writes {@code text} of {@code column} (whose form is {@code form}).
   *
   * @throws IllegalArgumentException naming the column when {@link #writes} does not take the text:
   *     it is never written as something else
   */
  static void write(ColumnInfo column, ValueForm form, String text, RowSink out) {
    if (!writes(column.kind(), text)) {
      throw new IllegalArgumentException(
          "column "
              + column.name()
              + " ("
              + column.kind()
              + "): the text "
              + (text.length() > 40 ? text.substring(0, 40) + "..." : text)
              + " is not its value's plain print; give its value instead");
    }
    switch (form) {
      case INTEGER:
        Varints.writeSigned(out, plainInteger(text));
        return;
      case DECIMAL:
        NumberForms.writeCompactDecimal(text, out);
        return;
      case STRING:
        TextForms.writeUtf8(out, text);
        return;
      case BOOLEAN:
        boolean value = isBooleanWord(text) ? text.charAt(0) == 't' : plainInteger(text) != 0;
        out.write(value ? 1 : 0);
        return;
      default:
        throw new IllegalArgumentException("no " + form + " value is written from its text");
    }
  }

  private static boolean isBooleanWord(String text) {
    return switch (text) {
      case "t", "f", "true", "false" -> true;
      default -> false;
    };
  }

  private static boolean isPlainInteger(String text) {
    int n = text.length();
    int first = n > 0 && text.charAt(0) == '-' ? 1 : 0;
    int digits = n - first;
    if (digits < 1 || digits > MAX_DIGITS) {
      return false;
    }
    if (text.charAt(first) == '0' && (digits > 1 || first == 1)) {
      return false; // 007, -0
    }
    for (int i = first; i < n; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static long plainInteger(String text) {
    boolean negative = text.charAt(0) == '-';
    long value = 0;
    for (int i = negative ? 1 : 0; i < text.length(); i++) {
      value = value * 10 + (text.charAt(i) - '0');
    }
    return negative ? -value : value;
  }
}
