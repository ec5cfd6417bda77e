package io.tablecast.protocol.row;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * The plain text of a decimal given as an unscaled long and a scale: what {@code new
 * BigDecimal(unscaled, scale).toPlainString()} prints, written straight into the string's bytes (a
 * generic mirror's DECIMAL read, and every DECIMAL the server writes as JSON, goes through it).
 */
final class DecimalText {
  private DecimalText() {}

  /**
   * @param unscaled the decimal's unscaled value
   * @param scale digits after the point, at least 0
   */
  static String plain(long unscaled, int scale) {
    if (scale == 0) {
      return Long.toString(unscaled);
    }
    if (unscaled == Long.MIN_VALUE) { // no positive long of its magnitude
      return new BigDecimal(BigInteger.valueOf(unscaled), scale).toPlainString();
    }
    boolean negative = unscaled < 0;
    long magnitude = Math.abs(unscaled);
    int digits = digits(magnitude);
    int integerDigits = Math.max(1, digits - scale); // "0" before the point when all are after it
    int length = (negative ? 1 : 0) + integerDigits + 1 + scale;
    byte[] out = new byte[length];
    int i = length;
    for (int d = 0; d < scale; d++) {
      out[--i] = (byte) ('0' + magnitude % 10);
      magnitude /= 10;
    }
    out[--i] = '.';
    do {
      out[--i] = (byte) ('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    if (negative) {
      out[--i] = '-';
    }
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  private static int digits(long positive) {
    int n = 1;
    for (long limit = 10; n < 19 && positive >= limit; limit *= 10) {
      n++;
    }
    return n;
  }
}
