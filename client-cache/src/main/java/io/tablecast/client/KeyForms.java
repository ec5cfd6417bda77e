package io.tablecast.client;

import io.tablecast.client.internal.RowKeys;
import io.tablecast.protocol.row.TemporalValues;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.Year;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The forms rows carry (docs/TYPES.md) of a key part given as a Java value whose text depends on
 * its column: the {@code java.time} and {@code java.sql} date-time classes, {@code BigDecimal} and
 * whole numbers for a decimal, {@code byte[]}, {@code ByteBuffer} and {@code UUID} for a binary
 * string, a {@code Year} or date for a {@code YEAR}. A lookup that missed with the part's plain
 * form ({@link RowKeys#fromUser}) looks again with these, so a hit costs nothing more. A
 * date-time's text has as many fraction digits as declared on MySQL and its trailing zeros dropped
 * on PostgreSQL, and a client does not know which database it mirrors: both forms are tried.
 */
final class KeyForms {
  private static final Pattern DIGITS = Pattern.compile("\\((\\d+)\\)");
  private static final Pattern SCALE = Pattern.compile("\\(\\s*\\d+\\s*,\\s*(\\d+)\\s*\\)");
  private static final Pattern DECIMAL_TEXT = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)");

  /** Keys tried for one lookup at most: two forms of each of three parts. */
  private static final int MAX_KEYS = 8;

  private KeyForms() {}

  /**
   * The parts of what a caller gave: its parts as an array, a composite key given as a {@code
   * List}, or the key alone.
   */
  static List<Object> parts(Object given, int keyColumns) {
    if (given instanceof Object[] array) {
      return Arrays.asList(array);
    }
    if (keyColumns > 1 && given instanceof List<?> list) {
      return Collections.unmodifiableList(list);
    }
    return Collections.singletonList(given);
  }

  /**
   * The keys to look up after {@code normalized} found no row: {@code given} in the forms rows
   * carry for the table's key columns, without {@code normalized}; empty when no part has another
   * form or the columns are not known yet.
   */
  static List<Object> alternatives(
      List<String> primaryKey, List<Column> columns, Object given, Object normalized) {
    List<Object> parts = parts(given, primaryKey.size());
    if (columns.isEmpty() || parts.size() != primaryKey.size()) {
      return List.of();
    }
    List<List<Object>> formsOfParts = new ArrayList<>(parts.size());
    boolean any = false;
    for (int i = 0; i < parts.size(); i++) {
      Column column = KeyMisses.column(columns, primaryKey.get(i));
      List<Object> forms = column == null ? List.of() : forms(parts.get(i), column);
      any |= !forms.isEmpty();
      formsOfParts.add(forms.isEmpty() ? List.of(plain(parts.get(i))) : forms);
    }
    if (!any) {
      return List.of();
    }
    Set<Object> keys = new LinkedHashSet<>();
    combine(formsOfParts, 0, new Object[parts.size()], keys);
    keys.remove(normalized);
    return List.copyOf(keys);
  }

  private static Object plain(Object part) {
    return RowKeys.fromUser(part, 1);
  }

  private static void combine(List<List<Object>> forms, int at, Object[] key, Set<Object> out) {
    if (out.size() >= MAX_KEYS) {
      return;
    }
    if (at == forms.size()) {
      out.add(key.length == 1 ? key[0] : Collections.unmodifiableList(Arrays.asList(key.clone())));
      return;
    }
    for (Object form : forms.get(at)) {
      key[at] = form;
      combine(forms, at + 1, key, out);
    }
  }

  /** The forms rows carry of {@code part} in {@code column}, the likeliest first; or none. */
  static List<Object> forms(Object part, Column column) {
    return switch (column.type()) {
      case DATE -> {
        LocalDate d = localDate(part);
        yield d == null ? List.of() : List.of(date(d));
      }
      case TIME -> {
        LocalTime t =
            isSql(part, "Time") ? sqlTime((java.util.Date) part) : as(part, LocalTime.class);
        yield t != null
            ? times(t, "", "", column)
            : part instanceof String text ? timeText(text, column) : List.of();
      }
      case TIMESTAMP -> {
        LocalDateTime t =
            isSql(part, "Timestamp")
                ? LocalDateTime.of(sqlDate((java.util.Date) part), sqlTime((java.util.Date) part))
                : as(part, LocalDateTime.class);
        yield t != null
            ? dateTimes(t, column)
            : part instanceof String text ? dateTimeText(text, column) : List.of();
      }
      case TIMESTAMP_TZ -> instant(part);
      case DECIMAL -> decimals(part, column);
      case BINARY -> {
        byte[] bytes = bytes(part);
        yield bytes == null ? List.of() : List.of(Base64.getEncoder().encodeToString(bytes));
      }
      case INTEGER -> wholeNumber(part, column);
      default -> List.of();
    };
  }

  /** What a key part given as such a value should be for {@code column}, or null when it fits. */
  static String refusal(Object part, Column column) {
    String fits =
        switch (column.type()) {
          case DATE -> "a LocalDate";
          case TIME -> "a LocalTime";
          case TIMESTAMP -> "a LocalDateTime";
          case TIMESTAMP_TZ -> "an Instant, an OffsetDateTime or a ZonedDateTime";
          case BINARY -> "a byte[]";
          default -> null;
        };
    boolean valueOfAType =
        part instanceof java.util.Date
            || part instanceof java.time.temporal.TemporalAccessor
            || part instanceof byte[]
            || part instanceof ByteBuffer;
    if (!valueOfAType || !forms(part, column).isEmpty()) {
      return null;
    }
    if (fits != null) {
      return "give " + fits;
    }
    return part instanceof byte[] || part instanceof ByteBuffer
        ? "give its value as docs/TYPES.md shows it"
        : null; // a date for a text column may be its text
  }

  /**
   * Whether {@code part} is {@code java.sql}'s class {@code name}, named: the client's module does
   * not read {@code java.sql}, whose three classes extend {@code java.util.Date}.
   */
  static boolean isSql(Object part, String name) {
    return part instanceof java.util.Date && part.getClass().getName().equals("java.sql." + name);
  }

  /** A {@code java.sql.Date}'s date (its {@code toLocalDate()}), from its fields. */
  @SuppressWarnings({"deprecation", "JavaUtilDate"}) // what JDBC hands out, read as java.sql does
  static LocalDate sqlDate(java.util.Date d) {
    return LocalDate.of(d.getYear() + 1900, d.getMonth() + 1, d.getDate());
  }

  /** A {@code java.sql.Time}'s or {@code Timestamp}'s time of day, nanoseconds included. */
  @SuppressWarnings({"deprecation", "JavaUtilDate", "JavaInstantGetSecondsGetNano"})
  static LocalTime sqlTime(java.util.Date d) {
    int nanos = isSql(d, "Timestamp") ? d.toInstant().getNano() : 0;
    return LocalTime.of(d.getHours(), d.getMinutes(), d.getSeconds(), nanos);
  }

  private static <T> T as(Object part, Class<T> type) {
    return type.isInstance(part) ? type.cast(part) : null;
  }

  private static LocalDate localDate(Object part) {
    return isSql(part, "Date") ? sqlDate((java.util.Date) part) : as(part, LocalDate.class);
  }

  /** A date as both databases print it: {@code 0044-03-15 BC} for 44 BC (PostgreSQL). */
  private static String date(LocalDate d) {
    if (d.equals(LocalDate.MAX) || d.equals(LocalDate.MIN)) { // how PgJDBC reads ±infinity
      return d.equals(LocalDate.MAX) ? "infinity" : "-infinity";
    }
    return datePart(d) + (d.getYear() <= 0 ? " BC" : "");
  }

  private static String datePart(LocalDate d) {
    int year = d.getYear() <= 0 ? 1 - d.getYear() : d.getYear();
    return String.format("%04d-%02d-%02d", year, d.getMonthValue(), d.getDayOfMonth());
  }

  private static List<Object> dateTimes(LocalDateTime t, Column column) {
    if (t.equals(LocalDateTime.MAX) || t.equals(LocalDateTime.MIN)) {
      return List.of(t.equals(LocalDateTime.MAX) ? "infinity" : "-infinity");
    }
    String bc = t.getYear() <= 0 ? " BC" : "";
    return times(t.toLocalTime(), datePart(t.toLocalDate()) + "T", bc, column);
  }

  private static List<Object> times(LocalTime t, String prefix, String suffix, Column column) {
    String hms = String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
    return fractions(prefix + hms, String.format("%09d", t.getNano()), suffix, column);
  }

  /**
   * {@code upToSeconds}, the fraction with its trailing zeros dropped (PostgreSQL) and {@code
   * suffix}; then with as many fraction digits as {@code column} declares (MySQL), when the
   * fraction has no more.
   */
  private static List<Object> fractions(
      String upToSeconds, String fraction, String suffix, Column column) {
    String dropped = fraction.replaceFirst("0+$", "");
    Matcher m = DIGITS.matcher(column.databaseType());
    int declared = m.find() ? Integer.parseInt(m.group(1)) : 0;
    Set<Object> out = new LinkedHashSet<>();
    out.add(upToSeconds + (dropped.isEmpty() ? "" : "." + dropped) + suffix);
    if (dropped.length() <= declared) {
      String digits = (dropped + "0".repeat(declared)).substring(0, declared);
      out.add(upToSeconds + (declared == 0 ? "" : "." + digits) + suffix);
    }
    return List.copyOf(out);
  }

  /**
   * The forms of a date-time given as text in another form than rows carry ({@code 2026-10-25
   * 02:30} for {@code 2026-10-25T02:30:00.000000}), read as {@link TemporalValues} reads it; none
   * when it is no date-time.
   */
  private static List<Object> dateTimeText(String text, Column column) {
    LocalDateTime t = TemporalValues.dateTime(text);
    return t == null ? List.of() : dateTimes(t, column);
  }

  /** As {@link #dateTimeText}, for a time: MySQL's below zero and past a day included. */
  private static List<Object> timeText(String text, Column column) {
    Duration d = TemporalValues.time(text);
    if (d == null) {
      return List.of();
    }
    Duration abs = d.abs();
    String hms =
        String.format(
            "%s%02d:%02d:%02d",
            d.isNegative() ? "-" : "", abs.toHours(), abs.toMinutesPart(), abs.toSecondsPart());
    return fractions(hms, String.format("%09d", abs.toNanosPart()), "", column);
  }

  private static List<Object> instant(Object part) {
    if (part instanceof OffsetDateTime o
        && (o.equals(OffsetDateTime.MAX) || o.equals(OffsetDateTime.MIN))) {
      return List.of(o.equals(OffsetDateTime.MAX) ? "infinity" : "-infinity");
    }
    Instant i =
        part instanceof Instant x
            ? x
            : part instanceof OffsetDateTime o
                ? o.toInstant()
                : part instanceof ZonedDateTime z
                    ? z.toInstant()
                    : part instanceof java.util.Date d && !isSql(d, "Date") && !isSql(d, "Time")
                        ? d.toInstant() // a java.sql.Timestamp too, with its nanoseconds
                        : null;
    return i == null ? List.of() : List.of(i.toString());
  }

  /** A decimal with the column's scale, then as given, then without trailing zeros. */
  private static List<Object> decimals(Object part, Column column) {
    BigDecimal d = decimal(part);
    if (d == null) {
      return List.of();
    }
    Set<Object> out = new LinkedHashSet<>();
    Matcher m = SCALE.matcher(column.databaseType());
    int scale =
        m.find() ? Integer.parseInt(m.group(1)) : column.databaseType().equals("money") ? 2 : -1;
    if (scale >= 0) {
      try {
        out.add(d.setScale(scale).toPlainString());
      } catch (ArithmeticException moreDigitsThanTheColumnHolds) {
        return List.of();
      }
    }
    out.add(d.toPlainString());
    out.add(d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString());
    return List.copyOf(out);
  }

  private static BigDecimal decimal(Object part) {
    if (part instanceof BigDecimal d) {
      return d;
    }
    if (part instanceof String text) {
      return DECIMAL_TEXT.matcher(text).matches() ? new BigDecimal(text) : null;
    }
    if (part instanceof java.math.BigInteger b) {
      return new BigDecimal(b);
    }
    return part instanceof Long
            || part instanceof Integer
            || part instanceof Short
            || part instanceof Byte
        ? BigDecimal.valueOf(((Number) part).longValue())
        : null;
  }

  private static byte[] bytes(Object part) {
    if (part instanceof byte[] b) {
      return b;
    }
    if (part instanceof ByteBuffer buffer) {
      byte[] b = new byte[buffer.remaining()];
      buffer.duplicate().get(b);
      return b;
    }
    if (part instanceof UUID u) { // a BINARY(16) key: the UUID's 16 bytes, most significant first
      return ByteBuffer.allocate(16)
          .putLong(u.getMostSignificantBits())
          .putLong(u.getLeastSignificantBits())
          .array();
    }
    return null;
  }

  /** A whole {@code BigDecimal} as a number; a {@code Year} or a date as the year of a YEAR. */
  private static List<Object> wholeNumber(Object part, Column column) {
    if (part instanceof BigDecimal d) {
      try {
        return List.of(plain(d.toBigIntegerExact()));
      } catch (ArithmeticException notWhole) {
        return List.of();
      }
    }
    boolean year = column.databaseType().toLowerCase(java.util.Locale.ROOT).startsWith("year");
    if (year && part instanceof Year y) {
      return List.of((long) y.getValue());
    }
    LocalDate d = localDate(part);
    return year && d != null ? List.of((long) d.getYear()) : List.of();
  }
}
