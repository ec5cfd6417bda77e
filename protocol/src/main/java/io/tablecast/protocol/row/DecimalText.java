package io.tablecast.protocol.row;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * The plain text of a decimal given as an unscaled long and a scale: what {@code new
 * BigDecimal(unscaled, scale).toPlainString()} prints, written straight into the string's bytes (a
 * generic mirror's DECIMAL read, and every DECIMAL the server writes as JSON, goes through it).
 */
public final class DecimalText {
  private DecimalText() {}

  /**
   * The plain text of {@code unscaled} &times; 10<sup>-scale</sup>.
   *
   * @param unscaled the decimal's unscaled value
   * @param scale digits after the point, at least 0
   */
  public static String plain(long unscaled, int scale) {
    if (scale == 0) {
      return Long.toString(unscaled);
    }
    if (unscaled == Long.MIN_VALUE) { // no positive long of its magnitude
      return new BigDecimal(BigInteger.valueOf(unscaled), scale).toPlainString();
    }
    boolean negative = unscaled < 0;
    long magnitude = Math.abs(unscaled);
    if (scale <= MAX_COMPACT_DIGITS) {
      // String concatenation sizes the string's bytes once and fills them in place: no array of
      // our own copied into the string afterwards (a generic mirror's DECIMAL read is this).
      long integer = magnitude / POWERS_OF_TEN[scale];
      long fraction = magnitude - integer * POWERS_OF_TEN[scale]; // one division, not two
      String zeros = ZEROS[scale - digits(fraction)];
      return negative ? "-" + integer + "." + zeros + fraction : integer + "." + zeros + fraction;
    }
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

  /** Most digits of a plain decimal read without a BigDecimal: any 18 digits fit a long. */
  static final int MAX_COMPACT_DIGITS = 18;

  /** 10<sup>i</sup> for i in 0..18. */
  private static final long[] POWERS_OF_TEN = new long[MAX_COMPACT_DIGITS + 1];

  /** i zeros for i in 0..17: the fraction's leading zeros. */
  private static final String[] ZEROS = new String[MAX_COMPACT_DIGITS];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
    for (int i = 0; i < ZEROS.length; i++) {
      ZEROS[i] = "0".repeat(i);
    }
  }

  /**
   * Whether {@code text} is a plain decimal that {@code new BigDecimal(text).toPlainString()}
   * prints back exactly, with at most 18 digits: an optional minus, an integer part without a
   * leading zero (or just "0"), an optional point and fraction, and not a negative zero (which a
   * BigDecimal prints without its sign). Such a text is read by {@link #unscaled} and {@link
   * #scale} without a BigDecimal.
   */
  public static boolean isCompactPlain(String text) {
    int n = text.length();
    int i = text.startsWith("-") ? 1 : 0;
    int digits = 0;
    boolean nonZero = false;
    int intStart = i;
    while (i < n && isDigit(text.charAt(i))) {
      nonZero |= text.charAt(i) != '0';
      i++;
      digits++;
    }
    int intDigits = i - intStart;
    if (intDigits == 0 || (intDigits > 1 && text.charAt(intStart) == '0')) {
      return false;
    }
    if (i < n) {
      if (text.charAt(i) != '.' || i == n - 1) {
        return false;
      }
      for (i++; i < n; i++) {
        if (!isDigit(text.charAt(i))) {
          return false;
        }
        nonZero |= text.charAt(i) != '0';
        digits++;
      }
    }
    return digits <= MAX_COMPACT_DIGITS && (nonZero || intStart == 0);
  }

  /** The unscaled value of a text {@link #isCompactPlain} accepted. */
  public static long unscaled(String text) {
    long v = 0;
    int start = text.startsWith("-") ? 1 : 0;
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '.') {
        v = v * 10 + (c - '0');
      }
    }
    return start == 1 ? -v : v;
  }

  /** The scale (digits after the point) of a text {@link #isCompactPlain} accepted. */
  public static int scale(String text) {
    int point = text.indexOf('.');
    return point < 0 ? 0 : text.length() - point - 1;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digits(long positive) {
    int n = 1;
    for (long limit = 10; n < 19 && positive >= limit; limit *= 10) {
      n++;
    }
    return n;
  }
}
