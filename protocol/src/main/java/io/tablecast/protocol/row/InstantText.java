package io.tablecast.protocol.row;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Date-times with an offset as text, read and printed without {@code java.time}'s formatters (which
 * build a map of fields per parse): the TIMESTAMP_TZ form of {@code docs/TYPES.md} is {@link
 * Instant#toString()}, and every captured {@code timestamptz} or MySQL {@code TIMESTAMP} is read
 * from a database's text and printed in that form once, a few million times at a snapshot.
 */
public final class InstantText {
  private static final int[] NANO_SCALE = {
    1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
  };

  private InstantText() {}

  /**
   * The instant {@code s} names, when it is {@code YYYY-MM-DD}, {@code T} or a space, {@code
   * HH:MM:SS}, an optional fraction of 1 to 9 digits, then {@code Z} or an offset of hours, minutes
   * or seconds ({@code +02}, {@code +05:30}, {@code +05:53:28}): ISO 8601 as {@code to_jsonb}
   * prints a {@code timestamptz}, and PostgreSQL's text output under {@code DateStyle = ISO}. Null
   * for anything else (years BC or past 9999, {@code infinity}, other forms), which the caller
   * reads its slower way.
   */
  public static Instant parse(String s) {
    int n = s.length();
    if (n < 20
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || (s.charAt(10) != 'T' && s.charAt(10) != ' ')
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int hour = TemporalText.digits(s, 11, 13);
    int minute = TemporalText.digits(s, 14, 16);
    int second = TemporalText.digits(s, 17, 19);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
      }
      int count = i - start;
      if (count < 1 || count > 9) {
        return null;
      }
      nanos = TemporalText.digits(s, start, i) * NANO_SCALE[count];
    }
    int offset = offsetSeconds(s, i);
    Long day = TemporalText.epochDayAtStart(s);
    if (offset == Integer.MIN_VALUE || day == null) {
      return null;
    }
    return Instant.ofEpochSecond(
        day * 86_400 + hour * 3600L + minute * 60L + second - offset, nanos);
  }

  /**
   * The instant {@code s} names when {@code s} is exactly what {@link #print} prints for it ({@code
   * T}, {@code Z}, the fraction in the groups of three digits it needs), else null: {@code
   * print(parse(s)).equals(s)} without printing, for years 0000 to 9999.
   */
  @SuppressWarnings("JavaInstantGetSecondsGetNano") // only the fraction's digits are looked at
  public static Instant parsePrinted(String s) {
    Instant instant = parse(s);
    int n = s.length();
    if (instant == null || s.charAt(10) != 'T' || s.charAt(n - 1) != 'Z') {
      return null;
    }
    int digits = fractionDigits(instant.getNano());
    return n == (digits == 0 ? 20 : 21 + digits) ? instant : null;
  }

  /** How many fraction digits {@link #print} gives {@code nanos}: 0, 3, 6 or 9. */
  private static int fractionDigits(int nanos) {
    if (nanos == 0) {
      return 0;
    }
    return nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
  }

  /**
   * {@link Instant#toString()} of the instant {@code epochSecond} and {@code nanos}: {@code
   * YYYY-MM-DDTHH:MM:SSZ}, the fraction in groups of three digits as needed; years outside 0000 to
   * 9999 as {@code Instant} prints them (a sign, more digits).
   */
  public static String print(long epochSecond, int nanos) {
    long day = Math.floorDiv(epochSecond, 86_400);
    if (day < -719_528 || day > 2_932_896) { // before 0000-01-01 or after 9999-12-31
      return Instant.ofEpochSecond(epochSecond, nanos).toString();
    }
    int secondOfDay = Math.floorMod(epochSecond, 86_400);
    LocalDate date = LocalDate.ofEpochDay(day);
    byte[] out = new byte[30]; // ASCII: a Latin-1 string is made of it without a scan
    int year = date.getYear();
    out[0] = (byte) ('0' + year / 1000);
    out[1] = (byte) ('0' + year / 100 % 10);
    out[2] = (byte) ('0' + year / 10 % 10);
    out[3] = (byte) ('0' + year % 10);
    out[4] = '-';
    two(out, 5, date.getMonthValue());
    out[7] = '-';
    two(out, 8, date.getDayOfMonth());
    out[10] = 'T';
    two(out, 11, secondOfDay / 3600);
    out[13] = ':';
    two(out, 14, secondOfDay / 60 % 60);
    out[16] = ':';
    two(out, 17, secondOfDay % 60);
    int length = 19;
    int digits = fractionDigits(nanos);
    if (digits > 0) {
      int value = nanos / NANO_SCALE[digits];
      out[length++] = '.';
      for (int d = digits - 1; d >= 0; d--) {
        out[length + d] = (byte) ('0' + value % 10);
        value /= 10;
      }
      length += digits;
    }
    out[length++] = 'Z';
    return new String(out, 0, length, StandardCharsets.ISO_8859_1);
  }

  /**
   * The offset at {@code s[at..]} to its end in seconds east of UTC ({@code Z}, {@code +HH}, {@code
   * +HH:MM}, {@code +HH:MM:SS}), or {@code Integer.MIN_VALUE} when it is not one.
   */
  private static int offsetSeconds(String s, int at) {
    int n = s.length();
    if (at < n && s.charAt(at) == 'Z') {
      return at + 1 == n ? 0 : Integer.MIN_VALUE;
    }
    if (at >= n || (s.charAt(at) != '+' && s.charAt(at) != '-')) {
      return Integer.MIN_VALUE;
    }
    int hours = at + 3 <= n ? TemporalText.digits(s, at + 1, at + 3) : -1;
    int minutes = 0;
    int seconds = 0;
    int i = at + 3;
    if (i < n) {
      minutes = i + 3 <= n && s.charAt(i) == ':' ? TemporalText.digits(s, i + 1, i + 3) : -1;
      i += 3;
    }
    if (i < n) {
      seconds = i + 3 == n && s.charAt(i) == ':' ? TemporalText.digits(s, i + 1, i + 3) : -1;
      i += 3;
    }
    if (hours < 0 || hours > 18 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) {
      return Integer.MIN_VALUE;
    }
    int total = hours * 3600 + minutes * 60 + seconds;
    return s.charAt(at) == '-' ? -total : total;
  }

  private static void two(byte[] out, int at, int value) {
    out[at] = (byte) ('0' + value / 10);
    out[at + 1] = (byte) ('0' + value % 10);
  }
}
