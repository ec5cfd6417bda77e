package io.tablecast.protocol;

/** A message could not be encoded or decoded, or broke a protocol rule. */
public class ProtocolException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final ErrorCode code;

  public ProtocolException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  public ProtocolException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
