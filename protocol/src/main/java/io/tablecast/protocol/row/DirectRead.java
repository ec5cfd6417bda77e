package io.tablecast.protocol.row;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * A generic mirror's column read, straight from a row's bytes by position: the walk to a column and
 * the decoding of its value for the common kinds (STRING, INTEGER, DECIMAL) use plain {@code int}
 * positions, no {@link RowSource}. A reader handed to a call the JIT does not inline is a new
 * object on every read (three per read of three columns, measured), and the walk is too large to be
 * inlined into every caller.
 *
 * <p>Each fast path takes only values whose bytes are plainly well formed (varints of at most 9
 * bytes without a redundant zero group, lengths within the row) and returns "not taken" for
 * anything else; the caller then reads that value with a {@link RowSource} as before, which accepts
 * or refuses it exactly as it always did and names the fault. So the results and errors are those
 * of {@link ValueForm#skip} and {@link ValueForm#toJava}, byte for byte.
 */
final class DirectRead {
  /** A fast path's "not taken": read the value with a {@link RowSource}. */
  static final int NOT_TAKEN = -1;

  private DirectRead() {}

  /** How the walk passes a value of a kind without a reader: one of these, by {@link #passOf}. */
  static final byte PASS_VARINT = 0;

  static final byte PASS_LENGTH_AND_BYTES = 1;
  static final byte PASS_ONE_BYTE = 2;

  /** A header (odd: text of header/2 bytes follows; even: the compact value) and one varint. */
  static final byte PASS_HEADER_AND_VARINT = 3;

  /** As {@link #PASS_HEADER_AND_VARINT}, a second varint when the header's parameter is not 0. */
  static final byte PASS_HEADER_AND_TIMESTAMP = 4;

  static final byte PASS_HEADER_AND_TWO_VARINTS = 5;
  static final byte PASS_WITH_READER = 6;

  /** How a value of {@code form} is passed: the shape its {@link ValueForm#skip} reads. */
  static byte passOf(ValueForm form) {
    return switch (form) {
      case INTEGER -> PASS_VARINT;
      case STRING, JSON -> PASS_LENGTH_AND_BYTES;
      case BOOLEAN -> PASS_ONE_BYTE;
      case DECIMAL, DATE, TIME -> PASS_HEADER_AND_VARINT;
      case TIMESTAMP -> PASS_HEADER_AND_TIMESTAMP;
      case TIMESTAMP_TZ -> PASS_HEADER_AND_TWO_VARINTS;
      default -> PASS_WITH_READER; // FLOAT, BINARY and any kind added later
    };
  }

  /**
   * Where the value that begins at {@code start}, of the shape {@code pass} ({@link #passOf}),
   * ends, read without a reader.
   *
   * @return the position after the value, or {@link #NOT_TAKEN}
   */
  static int end(byte pass, byte[] row, int start) {
    switch (pass) {
      case PASS_VARINT:
        return varintEnd(row, start);
      case PASS_LENGTH_AND_BYTES:
        return afterBytes(row, start);
      case PASS_ONE_BYTE:
        return start < row.length ? start + 1 : NOT_TAKEN;
      case PASS_HEADER_AND_VARINT:
      case PASS_HEADER_AND_TIMESTAMP:
      case PASS_HEADER_AND_TWO_VARINTS:
        int after = varintEnd(row, start);
        if (after < 0) {
          return NOT_TAKEN;
        }
        long header = varint(row, start, after - start);
        if ((header & 1) == 1) {
          return within(row, after, header >>> 1);
        }
        int end = varintEnd(row, after);
        boolean second =
            pass == PASS_HEADER_AND_TWO_VARINTS
                || (pass == PASS_HEADER_AND_TIMESTAMP && header >>> 1 != 0);
        return second && end >= 0 ? varintEnd(row, end) : end;
      default:
        return NOT_TAKEN;
    }
  }

  /**
   * The value of {@code form} that begins at {@code start}, as {@link ValueForm#toJava} reads it.
   */
  static Object toJava(ValueForm form, byte[] row, int start) {
    Object value =
        switch (form) {
          case STRING -> string(row, start);
          case INTEGER -> integer(row, start);
          case DECIMAL -> decimal(row, start, false);
          default -> null;
        };
    return value != null ? value : form.toJava(new RowSource(row, start, row.length));
  }

  /** Where a value of a length (varint) and that many bytes ends, or {@link #NOT_TAKEN}. */
  private static int afterBytes(byte[] row, int start) {
    int n = varintLength(row, start);
    return n == 0 ? NOT_TAKEN : within(row, start + n, varint(row, start, n));
  }

  /** {@code from + length} when that many bytes follow {@code from} in the row. */
  private static int within(byte[] row, int from, long length) {
    return length <= row.length - from ? from + (int) length : NOT_TAKEN;
  }

  private static String string(byte[] row, int start) {
    int end = afterBytes(row, start);
    if (end < 0) {
      return null;
    }
    int from = start + varintLength(row, start);
    return new String(row, from, end - from, StandardCharsets.UTF_8);
  }

  private static Object integer(byte[] row, int start) {
    int n = varintLength(row, start);
    if (n == 0) {
      return null;
    }
    long v = zigzag(varint(row, start, n));
    return v == (int) v ? (Object) Integer.valueOf((int) v) : (Object) Long.valueOf(v);
  }

  /**
   * The DECIMAL value that begins at {@code start} as a {@code BigDecimal}, when it is in its
   * compact form (an unscaled value and a scale from 0 to {@link NumberForms#MAX_DECIMAL_SCALE}):
   * the same unscaled value and scale as {@code new BigDecimal} of the text {@link #toJava} gives.
   * Null for a decimal kept as its text, or bytes that are not plainly well formed.
   */
  static BigDecimal bigDecimal(byte[] row, int start) {
    return (BigDecimal) decimal(row, start, true);
  }

  private static Object decimal(byte[] row, int start, boolean big) {
    int n = varintLength(row, start);
    if (n == 0) {
      return null;
    }
    long header = varint(row, start, n);
    if ((header & 1) == 1) { // kept as its text
      int end = within(row, start + n, header >>> 1);
      return end < 0 || big
          ? null
          : new String(row, start + n, end - start - n, StandardCharsets.UTF_8);
    }
    long scale = zigzag(header >>> 1);
    int m = varintLength(row, start + n);
    if (m == 0 || scale < 0 || scale > NumberForms.MAX_DECIMAL_SCALE) {
      return null;
    }
    long unscaled = zigzag(varint(row, start + n, m));
    return big
        ? BigDecimal.valueOf(unscaled, (int) scale)
        : DecimalText.plain(unscaled, (int) scale);
  }

  /**
   * How many bytes the varint at {@code start} takes, when it is at most 9 (63 bits: its value is a
   * non-negative long), lies within the row and has no redundant zero group; 0 otherwise.
   */
  static int varintLength(byte[] row, int start) {
    if (start < row.length && row[start] >= 0) {
      return 1; // the common case: below 128
    }
    int limit = Math.min(row.length - start, 9);
    for (int i = 0; i < limit; i++) {
      int b = row[start + i];
      if ((b & 0x80) == 0) {
        return b == 0 && i > 0 ? 0 : i + 1;
      }
    }
    return 0;
  }

  /**
   * Where the varint at {@code start} ends, when {@link #varintLength} takes it; else NOT_TAKEN.
   */
  static int varintEnd(byte[] row, int start) {
    int n = varintLength(row, start);
    return n == 0 ? NOT_TAKEN : start + n;
  }

  /** The value of the varint of {@code length} bytes at {@code start}. */
  static long varint(byte[] row, int start, int length) {
    if (length == 1) {
      return row[start];
    }
    long value = 0;
    for (int i = 0; i < length; i++) {
      value |= (long) (row[start + i] & 0x7f) << (7 * i);
    }
    return value;
  }

  private static long zigzag(long value) {
    return (value >>> 1) ^ -(value & 1);
  }
}
