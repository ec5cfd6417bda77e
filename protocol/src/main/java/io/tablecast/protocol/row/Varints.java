package io.tablecast.protocol.row;

import java.math.BigInteger;

/**
 * Base-128 variable-length integers (7 bits a byte, least significant group first, high bit set on
 * every byte but the last: the form of protobuf and of SQLite's record format), of any size, and
 * zig-zag signed integers over them (0, -1, 1, -2 as 0, 1, 2, 3), so small magnitudes of either
 * sign take one byte. Each value has exactly one encoding: the writer never emits a redundant
 * trailing zero group, and the reader refuses one, so rows compare byte for byte.
 */
final class Varints {
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger MASK_7 = BigInteger.valueOf(0x7f);

  private Varints() {}

  /** Writes {@code value} as an unsigned 64-bit varint (1 to 10 bytes). */
  static void writeUnsigned(RowSink out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** Writes a signed value zig-zag encoded. */
  static void writeSigned(RowSink out, long value) {
    writeUnsigned(out, (value << 1) ^ (value >> 63));
  }

  /**
   * Writes a signed value of any size zig-zag encoded; the same bytes as {@link
   * #writeSigned(RowSink, long)} where both apply.
   */
  static void writeSigned(RowSink out, BigInteger value) {
    if (value.compareTo(LONG_MIN) >= 0 && value.compareTo(LONG_MAX) <= 0) {
      writeSigned(out, value.longValue());
      return;
    }
    BigInteger zigzag =
        value.signum() >= 0
            ? value.shiftLeft(1)
            : value.shiftLeft(1).negate().subtract(BigInteger.ONE);
    while (zigzag.bitLength() > 7) {
      out.write(zigzag.and(MASK_7).intValue() | 0x80);
      zigzag = zigzag.shiftRight(7);
    }
    out.write(zigzag.intValue());
  }

  /** Reads an unsigned varint of at most 64 bits at the source's position. */
  static long readUnsigned(RowSource in) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = in.read();
      if (shift == 63 && (b & 0xfe) != 0) {
        throw in.malformed("varint longer than 64 bits");
      }
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) {
          throw in.malformed("varint with a redundant zero group");
        }
        return value;
      }
    }
    throw in.malformed("varint longer than 64 bits");
  }

  /** Reads an unsigned varint that must fit an int (lengths, counts). */
  static int readLength(RowSource in) {
    long value = readUnsigned(in);
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw in.malformed("length " + Long.toUnsignedString(value) + " out of range");
    }
    return (int) value;
  }

  /** Reads a zig-zag varint that must fit a long. */
  static long readSigned(RowSource in) {
    long zigzag = readUnsigned(in);
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }

  /** Whether the zig-zag varint at the source's position fits a long (read without moving). */
  static boolean fitsLong(RowSource in) {
    int start = in.position();
    int bytes = 1;
    while ((in.byteAt(start + bytes - 1) & 0x80) != 0) {
      bytes++;
    }
    return bytes < 10 || (bytes == 10 && (in.byteAt(start + 9) & 0xfe) == 0);
  }

  /**
   * Reads a zig-zag varint of any size; a value that fits a long is returned as one (boxed), others
   * as BigInteger.
   */
  static Number readSignedAnySize(RowSource in) {
    if (fitsLong(in)) {
      return readSigned(in);
    }
    int start = in.position();
    int bytes = 1;
    while ((in.byteAt(start + bytes - 1) & 0x80) != 0) {
      bytes++;
    }
    BigInteger zigzag = BigInteger.ZERO;
    for (int i = 0; i < bytes; i++) {
      int b = in.read();
      if (i == bytes - 1 && b == 0) {
        throw in.malformed("varint with a redundant zero group");
      }
      zigzag = zigzag.or(BigInteger.valueOf(b & 0x7f).shiftLeft(7 * i));
    }
    BigInteger magnitude = zigzag.shiftRight(1);
    return zigzag.testBit(0) ? magnitude.negate().subtract(BigInteger.ONE) : magnitude;
  }

  /** Skips one varint of any size. */
  static void skip(RowSource in) {
    while ((in.read() & 0x80) != 0) {
      // continuation
    }
  }
}
