package io.tablecast.client;

import io.tablecast.protocol.row.TemporalValues;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The value of a column of an index by column names in one form per kind, for the values read from
 * rows and the values asked for alike (before {@link IndexKeys#normalize}): a DATE as a {@code
 * LocalDate}, a TIMESTAMP as a {@code LocalDateTime}, a TIME as a {@code Duration} (a MySQL TIME
 * may be negative or past a day), from the text a generic row holds (docs/TYPES.md: {@code
 * 0044-03-15 BC}, {@code infinity} as {@code LocalDate.MAX}) or any text in those forms ({@code
 * 2026-10-25 02:30}), from {@code java.time} and {@code java.sql} values; a TIMESTAMP_TZ as an
 * {@code Instant}, from an {@code OffsetDateTime}, {@code ZonedDateTime} or {@code java.util.Date}
 * too; a DECIMAL text as a {@code BigDecimal}. So {@code get(LocalDate.of(2026, 1, 1))} and {@code
 * get("2026-01-01")} find the same rows, and a sorted index orders by time, years BC included. A
 * value of no such form is left as it is.
 */
final class IndexValues {
  private static final Pattern DECIMAL_TEXT = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)");

  private IndexValues() {}

  /**
   * {@code key} (one value, or a {@code List} of one per column) in the forms of {@code columns}
   * (null: as it is).
   */
  static Object byColumns(Object key, List<Column> columns) {
    if (columns == null) {
      return key;
    }
    if (columns.size() == 1) {
      return byColumn(key, columns.get(0));
    }
    if (!(key instanceof List<?> parts) || parts.size() != columns.size()) {
      return key;
    }
    List<Object> out = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      out.add(byColumn(parts.get(i), columns.get(i)));
    }
    return Collections.unmodifiableList(out);
  }

  static Object byColumn(Object value, Column column) {
    if (value == null || column == null) {
      return value;
    }
    try {
      Object typed =
          switch (column.type()) {
            case DATE -> date(value);
            case TIMESTAMP -> dateTime(value);
            case TIME -> time(value);
            case TIMESTAMP_TZ -> instant(value);
            case DECIMAL ->
                value instanceof String s && DECIMAL_TEXT.matcher(s).matches()
                    ? new BigDecimal(s)
                    : null;
            case BINARY, INTEGER -> value instanceof String ? null : firstForm(value, column);
            case STRING -> text(value);
            default -> null;
          };
      return typed != null ? typed : value;
    } catch (DateTimeException | ArithmeticException notAValue) {
      return value; // 2026-02-30: no row has it, as text or otherwise
    }
  }

  /**
   * A value of a binary column given as bytes or a {@code UUID} in its base64 text, a year given as
   * a {@code Year} or date, a whole {@code BigDecimal} as a number ({@link KeyForms}).
   */
  private static Object firstForm(Object value, Column column) {
    List<Object> forms = KeyForms.forms(value, column);
    return forms.isEmpty() ? null : forms.get(0);
  }

  /**
   * A text column's value given as a {@code UUID}, an enum or any object but a number: its text.
   */
  private static String text(Object value) {
    if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      return null;
    }
    return value instanceof Enum<?> e ? e.name() : value.toString();
  }

  private static LocalDate date(Object value) {
    if (value instanceof String s) {
      return TemporalValues.date(s);
    }
    return KeyForms.isSql(value, "Date") ? KeyForms.sqlDate((java.util.Date) value) : null;
  }

  private static LocalDateTime dateTime(Object value) {
    if (value instanceof String s) {
      return TemporalValues.dateTime(s);
    }
    if (KeyForms.isSql(value, "Timestamp")) {
      java.util.Date d = (java.util.Date) value;
      return LocalDateTime.of(KeyForms.sqlDate(d), KeyForms.sqlTime(d));
    }
    return null;
  }

  private static Duration time(Object value) {
    if (value instanceof Duration d) {
      return d;
    }
    if (value instanceof LocalTime t) {
      return Duration.ofNanos(t.toNanoOfDay());
    }
    if (KeyForms.isSql(value, "Time")) {
      return Duration.ofNanos(KeyForms.sqlTime((java.util.Date) value).toNanoOfDay());
    }
    return value instanceof String s ? TemporalValues.time(s) : null;
  }

  private static Instant instant(Object value) {
    if (value instanceof String s) {
      return TemporalValues.instant(s);
    }
    if (value instanceof OffsetDateTime o) { // PgJDBC reads infinity as OffsetDateTime.MAX
      return o.equals(OffsetDateTime.MAX)
          ? Instant.MAX
          : o.equals(OffsetDateTime.MIN) ? Instant.MIN : o.toInstant();
    }
    if (value instanceof ZonedDateTime z) {
      return z.toInstant();
    }
    boolean date = value instanceof java.util.Date;
    return date && !KeyForms.isSql(value, "Date") && !KeyForms.isSql(value, "Time")
        ? ((java.util.Date) value).toInstant()
        : null;
  }
}
