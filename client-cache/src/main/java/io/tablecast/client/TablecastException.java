package io.tablecast.client;

import io.tablecast.protocol.ErrorCode;

/**
 * A failure reported by the server (a refused subscription, failed authentication) or a use of
 * a closed client.
 */
public class TablecastException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient ErrorCode code;

  public TablecastException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  /** The server's error code, or null when the failure did not come from the server. */
  public ErrorCode code() {
    return code;
  }
}
