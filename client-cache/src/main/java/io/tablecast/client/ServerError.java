package io.tablecast.client;

/**
 * Why a server refused a table or a connection, as {@link TablecastException#code()} and {@link
 * ErrorListener#serverError} tell (the protocol's error codes, {@code docs/PROTOCOL.md}).
 */
public enum ServerError {
  /** A frame could not be decoded: truncated, malformed or of an unknown type. */
  BAD_FRAME,
  /** The client speaks a protocol version the server does not. */
  UNSUPPORTED_VERSION,
  /** A message arrived out of order, or a table was subscribed twice on one connection. */
  PROTOCOL_VIOLATION,
  /** Credentials are missing or wrong. */
  AUTHENTICATION_FAILED,
  /** The principal may not read the table. */
  ACCESS_DENIED,
  /** The table is not one of the server's cached tables. */
  UNKNOWN_TABLE,
  /** The client did not read fast enough and was disconnected; it resubscribes. */
  SLOW_CONSUMER,
  /** The server is shutting down. */
  SHUTTING_DOWN,
  /** A limit was exceeded: connections, idle time, subscriptions per connection. */
  LIMIT_EXCEEDED,
  /** An unexpected server-side failure (also any code this client does not know). */
  INTERNAL
}
