package io.tablecast.protocol.row;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * What the value forms share: the header of a kind whose JSON form is a text (see {@link
 * ValueForm}), written as a compact form's parameter or as a text kept as printed, and the checks
 * that refuse a JSON value of another type, or a length or a count of fraction digits that a row
 * cannot hold.
 */
final class ValueBytes {
  private ValueBytes() {}

  /** Writes the header of a value in its compact form: {@code parameter}, then a low bit 0. */
  static void writeParameter(RowSink out, long parameter) {
    Varints.writeUnsigned(out, parameter << 1);
  }

  /** Writes a value kept as printed: the header (low bit 1, the length) and the UTF-8 bytes. */
  static void writeText(RowSink out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Varints.writeUnsigned(out, ((long) bytes.length << 1) | 1);
    out.write(bytes);
  }

  /** Reads the text of a value kept as printed, whose header (low bit 1) was just read. */
  static String text(long header, RowSource in) {
    int length = checkedLength(header >>> 1, in);
    int start = in.skip(length);
    return new String(in.bytes(), start, length, StandardCharsets.UTF_8);
  }

  static int checkedLength(long length, RowSource in) {
    if (length > Integer.MAX_VALUE) {
      throw in.malformed("length " + length + " out of range");
    }
    return (int) length;
  }

  static int checkedDigits(long digits, RowSource in) {
    if (digits > 9) {
      throw in.malformed("fraction of " + digits + " digits");
    }
    return (int) digits;
  }

  static String textOf(JsonNode v) {
    if (!v.isTextual()) {
      throw unexpected(v);
    }
    return v.textValue();
  }

  /** A value as an error message shows it: its JSON, cut at 80 characters. */
  static String abbreviated(JsonNode v) {
    String s = v.toString();
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  static IllegalArgumentException unexpected(JsonNode v) {
    return new IllegalArgumentException(
        "a " + v.getNodeType() + " value where the column's JSON form was expected");
  }
}
