package io.tablecast.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** The check of a static bearer token ({@code metrics_token}) on an HTTP request. */
public final class BearerToken {
  private static final String PREFIX = "Bearer ";

  private BearerToken() {}

  /**
   * Whether the {@code Authorization} header carries {@code token} as a bearer token, compared in
   * constant time; a null token lets every request through.
   */
  public static boolean allows(String authorizationHeader, String token) {
    if (token == null) {
      return true;
    }
    if (authorizationHeader == null
        || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return false;
    }
    return MessageDigest.isEqual(
        authorizationHeader.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8),
        token.getBytes(StandardCharsets.UTF_8));
  }
}
