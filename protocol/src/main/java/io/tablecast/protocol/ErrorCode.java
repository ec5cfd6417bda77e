package io.tablecast.protocol;

/**
 * Stable error codes carried by {@link Message.Error}. On the wire an error travels by its name;
 * the numeric {@link #code()} is for logs and metrics.
 */
public enum ErrorCode {
  /** A frame could not be decoded: truncated, malformed or of an unknown type. */
  BAD_FRAME(1),
  /** The client speaks a protocol version the server does not. */
  UNSUPPORTED_VERSION(2),
  /**
   * A message arrived out of order, e.g. a subscription before the hello; with a table, a subscribe
   * named a table the connection has already subscribed to (not fatal).
   */
  PROTOCOL_VIOLATION(3),
  /** Credentials are missing or wrong. */
  AUTHENTICATION_FAILED(4),
  /** The principal may not read the table. */
  ACCESS_DENIED(5),
  /** The table is not one of the server's cached tables. */
  UNKNOWN_TABLE(6),
  /** The client did not read fast enough and was disconnected; it should resubscribe. */
  SLOW_CONSUMER(7),
  /** The server is shutting down. */
  SHUTTING_DOWN(8),
  /**
   * A limit was exceeded: {@code max_connections}, {@code idle_timeout}, {@code
   * max_subscriptions_per_connection}. An oversized frame is a {@link #BAD_FRAME}.
   */
  LIMIT_EXCEEDED(9),
  /** An unexpected server-side failure. */
  INTERNAL(10);

  private final int code;

  ErrorCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Looks up an error code by number; unknown numbers map to {@link #INTERNAL}. */
  public static ErrorCode forCode(int code) {
    for (ErrorCode c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    return INTERNAL;
  }
}
