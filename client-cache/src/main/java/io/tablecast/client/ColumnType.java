package io.tablecast.client;

/**
 * How a column's values are represented in a mirror's rows (the JSON form of each is specified in
 * {@code docs/TYPES.md}): what a generic row holds and what a typed row's property must take.
 */
public enum ColumnType {
  /** Integers of any width: {@code Integer}, {@code Long} or {@code BigInteger} in generic rows. */
  INTEGER,
  /**
   * Exact decimals, as strings holding the database's text ("12.3400"); map to {@code BigDecimal}.
   */
  DECIMAL,
  /** Binary floating point: {@code Double} in generic rows ("NaN", "Infinity" as strings). */
  FLOAT,
  /** true / false. */
  BOOLEAN,
  /** Character data, enums, UUIDs and other textual values, as strings. */
  STRING,
  /** Binary data, as base64 strings (RFC 4648, no line breaks); map to {@code byte[]}. */
  BINARY,
  /** ISO-8601 date: "2024-02-29"; maps to {@code LocalDate}. */
  DATE,
  /** ISO-8601 time of day: "13:45:30.123456"; maps to {@code LocalTime}. */
  TIME,
  /**
   * ISO-8601 local date-time without zone: "2024-02-29T13:45:30.123456"; maps to {@code
   * LocalDateTime}.
   */
  TIMESTAMP,
  /**
   * ISO-8601 instant in UTC: "2024-02-29T13:45:30.123456Z"; maps to {@code Instant} or {@code
   * OffsetDateTime}.
   */
  TIMESTAMP_TZ,
  /**
   * Embedded JSON (objects, arrays, scalars) and PostgreSQL arrays: nested maps and lists in
   * generic rows.
   */
  JSON
}
