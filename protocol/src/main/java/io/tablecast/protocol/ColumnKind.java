package io.tablecast.protocol;

/**
 * How a column's values are represented in JSON rows. The JSON form of each kind is specified in
 * {@code docs/TYPES.md}.
 */
public enum ColumnKind {
  /** Integers of any width, as JSON numbers (unsigned 64-bit values included). */
  INTEGER,
  /** Exact decimals, as JSON strings holding the database's text ("12.3400"). */
  DECIMAL,
  /** Binary floating point, as JSON numbers ("NaN", "Infinity" as strings). */
  FLOAT,
  /** true / false. */
  BOOLEAN,
  /** Character data, enums, UUIDs and other textual values, as JSON strings. */
  STRING,
  /** Binary data, as base64 strings (RFC 4648, no line breaks). */
  BINARY,
  /** ISO-8601 date: "2024-02-29". */
  DATE,
  /** ISO-8601 time of day: "13:45:30.123456". */
  TIME,
  /** ISO-8601 local date-time without zone: "2024-02-29T13:45:30.123456". */
  TIMESTAMP,
  /** ISO-8601 instant in UTC: "2024-02-29T13:45:30.123456Z". */
  TIMESTAMP_TZ,
  /** Embedded JSON (objects, arrays, scalars) and PostgreSQL arrays. */
  JSON
}
