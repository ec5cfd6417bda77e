package io.tablecast.server.postgresql;

import io.tablecast.protocol.row.InstantText;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Locale;

/**
 * A {@code timestamptz} as PostgreSQL prints it, in JSON ({@code 2024-02-29T11:45:30.5+00:00}) or
 * as its text output under {@code DateStyle = ISO} ({@code 2024-02-29 11:45:30.5+00}), as the
 * instant of docs/TYPES.md: years BC ({@code 0044-03-15 ... BC}) and past 9999 included, which
 * stopped the snapshot and the tail before ("cannot convert"); {@code infinity} and {@code
 * -infinity} as they are.
 */
final class PgInstants {
  private PgInstants() {}

  /**
   * A date-time with its offset in either form: a {@code T} or a space, an offset of hours, minutes
   * or seconds (local mean time zones print {@code +05:53:28}).
   */
  private static final DateTimeFormatter OFFSET_DATE_TIME =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .append(DateTimeFormatter.ISO_LOCAL_TIME)
          .appendOffset("+HH:mm:ss", "Z")
          .toFormatter(Locale.ROOT);

  /** {@code Instant.toString()} of the instant {@code printed} names, or the infinities. */
  static String instant(String printed) {
    Instant instant = InstantText.parse(printed); // nearly every value, without the formatters
    if (instant != null) {
      return InstantText.print(instant.getEpochSecond(), instant.getNano());
    }
    if (printed.equals("infinity") || printed.equals("-infinity")) {
      return printed;
    }
    return OffsetDateTime.parse(isoYear(printed), OFFSET_DATE_TIME).toInstant().toString();
  }

  /**
   * {@code s} with PostgreSQL's year written as ISO 8601 writes it: a year before 1 prints as
   * {@code 0044-03-15 ... BC} (ISO year -43, {@code -0043}), a year past 9999 with more digits and
   * no sign ({@code +294276}).
   */
  private static String isoYear(String s) {
    int dash = s.indexOf('-');
    if (s.endsWith(" BC")) {
      int isoYear = 1 - Integer.parseInt(s, 0, dash, 10);
      String year = String.format(Locale.ROOT, isoYear == 0 ? "%04d" : "-%04d", -isoYear);
      return year + s.substring(dash, s.length() - " BC".length());
    }
    return dash > 4 ? "+" + s : s;
  }
}
