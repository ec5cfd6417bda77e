package io.tablecast.server.auth;

/**
 * Credentials were missing or rejected. The message goes to the client as {@code
 * AUTHENTICATION_FAILED} and never says whether a user name exists; {@link #reason()} is the {@code
 * reason} tag of the {@code tablecast.auth.failures} meter.
 */
public final class AuthenticationException extends SecurityException {

  private final String reason;

  public AuthenticationException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /**
   * Short stable tag: {@code missing_credentials}, {@code bad_credentials}, {@code bad_token}, ...
   */
  public String reason() {
    return reason;
  }
}
