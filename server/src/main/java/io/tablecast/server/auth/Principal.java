package io.tablecast.server.auth;

import java.util.Map;
import java.util.Objects;

/**
 * Who a client is, once authenticated: a name (for logs and policies) and the claims its
 * credentials carried (a JWT's claims; {@code sub} = the name for a password principal).
 *
 * @param name the principal's name, never empty
 * @param claims immutable claims; values are strings, numbers, booleans, lists or maps
 */
public record Principal(String name, Map<String, Object> claims) {

  /** The principal of an open server (no {@code auth:} section). */
  public static Principal anonymous(String name) {
    return new Principal(name == null ? "anonymous" : name, Map.of());
  }

  public Principal {
    Objects.requireNonNull(name, "name");
    claims = Map.copyOf(claims);
  }
}
