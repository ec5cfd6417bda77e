package io.tablecast.server.auth;

import io.tablecast.protocol.Message;
import java.util.concurrent.Executor;

/**
 * Decides whether a client may connect, from the credentials of its {@link Message.Hello} (both
 * transports), and what it may read. {@link #authenticate} and {@link #authorize} run on {@link
 * #executor()}: an authenticator that does slow work (PBKDF2, about 100 ms) supplies its own small
 * pool so that it never blocks a Netty event loop; the session processes nothing else of that
 * client until the verdict. The server uses {@link #allowAll()} when the configuration has no
 * {@code auth:} section, and {@link ConfigAuthenticator} otherwise.
 */
@FunctionalInterface
public interface Authenticator {

  /**
   * Checks the credentials of a hello.
   *
   * @return the authenticated principal
   * @throws SecurityException with a message saying what was wrong (never whether a user name
   *     exists); the client gets {@code AUTHENTICATION_FAILED} and is disconnected. An {@link
   *     AuthenticationException} also gives the meter's reason.
   */
  Principal authenticate(Message.Hello hello);

  /**
   * What the principal may read; {@link SessionPolicy#ALLOW_ALL} unless overridden.
   *
   * @throws SecurityException when no policy can be resolved (treated like a failed authentication)
   */
  default SessionPolicy authorize(Principal principal) {
    return SessionPolicy.ALLOW_ALL;
  }

  /**
   * Whether the principal may open the operations console ({@code /console}, read-only: every
   * table's size, every session, the recent errors); false unless overridden.
   */
  default boolean isAdmin(Principal principal) {
    return false;
  }

  /**
   * Where {@link #authenticate} and {@link #authorize} run; the calling event loop unless
   * overridden.
   */
  default Executor executor() {
    return Runnable::run;
  }

  /**
   * Changes each time the rules change while the server runs ({@link ReloadingAuthenticator}); a
   * verdict reached under another generation is not used.
   */
  default long generation() {
    return 0;
  }

  /** Accepts every client; the principal is the hello's user, or {@code anonymous}. */
  static Authenticator allowAll() {
    return hello -> Principal.anonymous(hello.user());
  }
}
