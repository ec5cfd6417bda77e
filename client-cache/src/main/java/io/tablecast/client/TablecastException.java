package io.tablecast.client;

/**
 * A failure reported by the server (a refused subscription, failed authentication), a TLS failure,
 * or a use of a closed client.
 */
public class TablecastException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final ServerError code;

  /**
   * @param code the server's error, or null when the failure did not come from the server
   * @param message what failed, naming the table or server
   */
  public TablecastException(ServerError code, String message) {
    super(message);
    this.code = code;
  }

  /** The server's error, or null when the failure did not come from the server. */
  public ServerError code() {
    return code;
  }
}
