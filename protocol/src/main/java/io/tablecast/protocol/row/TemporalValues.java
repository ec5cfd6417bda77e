package io.tablecast.protocol.row;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The texts of {@code docs/TYPES.md}'s DATE, TIME, TIMESTAMP and TIMESTAMP_TZ forms as values that
 * compare as points in time, for filters and indexes: every form either database prints (years BC
 * as {@code 0044-03-15 BC}, years past 9999, {@code infinity} and {@code -infinity} as the class's
 * {@code MAX} and {@code MIN}, as PgJDBC reads them, a MySQL TIME below zero or past a day, a
 * PostgreSQL {@code 24:00:00}), and the same with a space for the {@code T} or without seconds, as
 * a person writes them. Null for any other text: no value of the kind has it.
 */
public final class TemporalValues {
  private static final Pattern DATE = Pattern.compile("([+-]?)(\\d{4,})-(\\d{2})-(\\d{2})( BC)?");
  private static final Pattern DATE_TIME =
      Pattern.compile(
          "([+-]?)(\\d{4,})-(\\d{2})-(\\d{2})[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?"
              + "( BC)?");
  private static final Pattern TIME =
      Pattern.compile("(-?)(\\d{2,3}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?");

  private TemporalValues() {}

  /** A DATE's text as a date; {@code infinity} as {@code LocalDate.MAX}. */
  public static LocalDate date(String s) {
    if (s.equals("infinity") || s.equals("-infinity")) {
      return s.equals("infinity") ? LocalDate.MAX : LocalDate.MIN;
    }
    Long day = TemporalText.parseDate(s); // YYYY-MM-DD, most dates, without a regular expression
    if (day != null) {
      return LocalDate.ofEpochDay(day);
    }
    Matcher m = DATE.matcher(s);
    return m.matches() ? dateOf(m) : null;
  }

  /** A TIMESTAMP's text as a date-time; {@code infinity} as {@code LocalDateTime.MAX}. */
  public static LocalDateTime dateTime(String s) {
    if (s.equals("infinity") || s.equals("-infinity")) {
      return s.equals("infinity") ? LocalDateTime.MAX : LocalDateTime.MIN;
    }
    TemporalText.Parsed fast = TemporalText.parseTimestamp(s); // YYYY-MM-DDTHH:MM:SS[.f]
    if (fast != null) {
      long nanos = fast.fraction() * TemporalText.powerOfTen(9 - fast.digits());
      return LocalDateTime.ofEpochSecond(fast.seconds(), (int) nanos, ZoneOffset.UTC);
    }
    Matcher m = DATE_TIME.matcher(s);
    if (!m.matches()) {
      return null;
    }
    LocalDate date = dateOf(m);
    try {
      LocalTime time =
          LocalTime.of(
              Integer.parseInt(m.group(5)),
              Integer.parseInt(m.group(6)),
              m.group(7) == null ? 0 : Integer.parseInt(m.group(7)),
              nanos(m.group(8)));
      return date == null ? null : LocalDateTime.of(date, time);
    } catch (DateTimeException notATime) {
      return null;
    }
  }

  /**
   * A TIME's text as the signed time since midnight: MySQL's run from {@code -838:59:59} to {@code
   * 838:59:59}, PostgreSQL's to {@code 24:00:00}.
   */
  public static Duration time(String s) {
    Matcher m = TIME.matcher(s);
    if (!m.matches() || Integer.parseInt(m.group(3)) > 59) {
      return null;
    }
    int seconds = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
    if (seconds > 59) {
      return null;
    }
    Duration d =
        Duration.ofHours(Long.parseLong(m.group(2)))
            .plusMinutes(Long.parseLong(m.group(3)))
            .plusSeconds(seconds)
            .plusNanos(nanos(m.group(5)));
    return m.group(1).isEmpty() ? d : d.negated();
  }

  /**
   * A TIMESTAMP_TZ's text as an instant: as {@code Instant.toString()} and {@code to_jsonb} print
   * one, or with an offset ({@code +01:00}, {@code +01}) and a space for the {@code T}; {@code
   * infinity} as {@code Instant.MAX}.
   */
  public static Instant instant(String s) {
    if (s.equals("infinity") || s.equals("-infinity")) {
      return s.equals("infinity") ? Instant.MAX : Instant.MIN;
    }
    Instant fast = InstantText.parse(s);
    if (fast != null) {
      return fast;
    }
    try {
      return OffsetDateTime.parse(s.replace(' ', 'T')).toInstant(); // years BC or past 9999
    } catch (DateTimeException notAnInstant) {
      return null;
    }
  }

  /** The date of groups 1 (sign) to 4 and the last ({@code BC}); null when there is none. */
  private static LocalDate dateOf(Matcher m) {
    try {
      long year = Long.parseLong(m.group(2));
      boolean bc = m.group(m.groupCount()) != null;
      long iso = bc ? 1 - year : m.group(1).equals("-") ? -year : year;
      return LocalDate.of(
          Math.toIntExact(iso), Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)));
    } catch (DateTimeException | ArithmeticException | NumberFormatException notADate) {
      return null;
    }
  }

  private static int nanos(String fraction) {
    return fraction == null ? 0 : Integer.parseInt((fraction + "00000000").substring(0, 9));
  }
}
