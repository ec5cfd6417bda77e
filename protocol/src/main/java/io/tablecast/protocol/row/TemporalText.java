package io.tablecast.protocol.row;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * The texts of {@code docs/TYPES.md}'s DATE, TIME and TIMESTAMP forms as numbers and back. A parse
 * returns null for any text it does not take; the caller keeps such a value as text, and also any
 * value whose number does not print back to the very same text. So a value is stored as a number
 * only when the number gives its text back exactly, whatever the database printed ({@code
 * infinity}, BC dates, MySQL's zero dates, years past 9999 stay text).
 */
final class TemporalText {
  private static final long[] POWERS_OF_TEN = {
    1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L
  };

  private TemporalText() {}

  /**
   * A parsed time or timestamp: whole seconds, and the fraction as an integer of {@code digits}
   * digits.
   */
  record Parsed(long seconds, long fraction, int digits) {}

  static long powerOfTen(int digits) {
    return POWERS_OF_TEN[digits];
  }

  /** {@code YYYY-MM-DD} as an epoch day, or null. */
  static Long parseDate(String s) {
    return s.length() == 10 ? epochDayAtStart(s) : null;
  }

  /** The {@code YYYY-MM-DD} that {@code s} begins with as an epoch day, or null. */
  static Long epochDayAtStart(String s) {
    if (s.length() < 10 || s.charAt(4) != '-' || s.charAt(7) != '-') {
      return null;
    }
    int y = digits(s, 0, 4);
    int m = digits(s, 5, 7);
    int d = digits(s, 8, 10);
    if (y < 0 || m < 0 || d < 0) {
      return null;
    }
    try {
      return LocalDate.of(y, m, d).toEpochDay();
    } catch (DateTimeException e) {
      return null;
    }
  }

  static String printDate(long epochDay) {
    StringBuilder sb = new StringBuilder(10);
    appendDate(sb, epochDay);
    return sb.toString();
  }

  /**
   * {@code [-]HH:MM:SS[.f]} (hours two digits or more, as MySQL prints times beyond a day) as a
   * signed count of {@code 10^-digits} seconds; null when not of that form.
   */
  static Parsed parseTime(String s) {
    int i = 0;
    boolean negative = s.startsWith("-");
    if (negative) {
      i = 1;
    }
    int colon = s.indexOf(':', i);
    if (colon - i < 2 || colon - i > 6 || s.length() < colon + 6 || s.charAt(colon + 3) != ':') {
      return null;
    }
    int h = digits(s, i, colon);
    int m = digits(s, colon + 1, colon + 3);
    int sec = digits(s, colon + 4, colon + 6);
    if (h < 0 || m < 0 || m > 59 || sec < 0 || sec > 59) {
      return null;
    }
    Parsed fraction = fraction(s, colon + 6, (long) h * 3600 + m * 60L + sec);
    if (fraction == null) {
      return null;
    }
    long total = fraction.seconds() * powerOfTen(fraction.digits()) + fraction.fraction();
    return new Parsed(negative ? -total : total, 0, fraction.digits());
  }

  /**
   * The text of a time parsed by {@link #parseTime}: {@code units} of {@code 10^-digits} seconds.
   */
  static String printTime(long units, int digits) {
    StringBuilder sb = new StringBuilder(16);
    if (units < 0) {
      sb.append('-');
      units = -units;
    }
    long scale = powerOfTen(digits);
    long seconds = units / scale;
    long hours = seconds / 3600;
    if (hours < 10) {
      sb.append('0');
    }
    sb.append(hours).append(':');
    two(sb, (int) (seconds / 60 % 60)).append(':');
    two(sb, (int) (seconds % 60));
    appendFraction(sb, units % scale, digits);
    return sb.toString();
  }

  /**
   * {@code YYYY-MM-DDTHH:MM:SS[.f]} as epoch seconds (read as UTC) and fraction; null when not of
   * that form.
   */
  static Parsed parseTimestamp(String s) {
    if (s.length() < 19 || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
      return null;
    }
    Long day = parseDate(s.substring(0, 10));
    int h = digits(s, 11, 13);
    int m = digits(s, 14, 16);
    int sec = digits(s, 17, 19);
    if (day == null || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 59) {
      return null;
    }
    return fraction(s, 19, day * 86_400 + h * 3600L + m * 60L + sec);
  }

  static String printTimestamp(long epochSeconds, long fraction, int digits) {
    StringBuilder sb = new StringBuilder(29);
    long day = Math.floorDiv(epochSeconds, 86_400);
    int secondOfDay = Math.floorMod(epochSeconds, 86_400);
    appendDate(sb, day);
    sb.append('T');
    two(sb, secondOfDay / 3600).append(':');
    two(sb, secondOfDay / 60 % 60).append(':');
    two(sb, secondOfDay % 60);
    appendFraction(sb, fraction, digits);
    return sb.toString();
  }

  private static Parsed fraction(String s, int at, long seconds) {
    if (at == s.length()) {
      return new Parsed(seconds, 0, 0);
    }
    int digits = s.length() - at - 1;
    if (s.charAt(at) != '.' || digits < 1 || digits > 9) {
      return null;
    }
    int fraction = digits(s, at + 1, s.length());
    return fraction < 0 ? null : new Parsed(seconds, fraction, digits);
  }

  private static void appendDate(StringBuilder sb, long epochDay) {
    LocalDate d = LocalDate.ofEpochDay(epochDay);
    int y = d.getYear();
    if (y < 0 || y > 9999) {
      sb.append(d); // never equal to a text parseDate took: the caller keeps the text
      return;
    }
    String year = Integer.toString(y);
    sb.append("0000", 0, 4 - year.length()).append(year).append('-');
    two(sb, d.getMonthValue()).append('-');
    two(sb, d.getDayOfMonth());
  }

  private static void appendFraction(StringBuilder sb, long fraction, int digits) {
    if (digits == 0) {
      return;
    }
    String f = Long.toString(fraction);
    sb.append('.').append("000000000", 0, digits - f.length()).append(f);
  }

  private static StringBuilder two(StringBuilder sb, int value) {
    return sb.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
  }

  /** The decimal digits of {@code s[from, to)} as a number; -1 when any is not a digit. */
  static int digits(String s, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
