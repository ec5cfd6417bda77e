package io.tablecast.server.auth;

/**
 * What admitted a session: its principal, whether it came with a token (else a password), and the
 * policy it was given. Kept with the session so that a change of the access rules ({@link
 * ReloadingAuthenticator#replace}) can tell which open sessions the new rules no longer admit.
 *
 * @param principal the authenticated principal
 * @param viaToken it came with a token, not a password
 * @param policy what it may read, as {@link Authenticator#authorize} said
 */
public record Admission(Principal principal, boolean viaToken, SessionPolicy policy) {

  /** Asks a session to end, with {@code reason} for its client. */
  public record Withdrawn(String reason) {}
}
