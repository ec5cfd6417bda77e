package io.tablecast.server.auth;

import io.tablecast.protocol.Message;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's access rules, replaceable while it serves ({@code auth:} changed in the
 * configuration file: {@link io.tablecast.server.ConfigFileWatch}). Each call goes to the rules of
 * now; {@link #generation()} changes with them, so that a hello checked under the old rules is not
 * admitted after the change was applied to the open sessions.
 */
public final class ReloadingAuthenticator implements Authenticator {
  private volatile Authenticator rules;
  private final AtomicLong generation = new AtomicLong();

  public ReloadingAuthenticator(Authenticator rules) {
    this.rules = rules;
  }

  /** The rules of now. */
  public Authenticator rules() {
    return rules;
  }

  /** Puts {@code next} in place; returns the rules it replaced. */
  public synchronized Authenticator replace(Authenticator next) {
    Authenticator before = rules;
    rules = next;
    generation.incrementAndGet();
    return before;
  }

  /**
   * Why the rules {@code after} no longer admit a session {@code before} admitted as {@code
   * session}, or null when they still do (with the same policy).
   */
  public static String withdrawn(Authenticator before, Authenticator after, Admission session) {
    if (!(after instanceof ConfigAuthenticator next)) {
      return null; // an open server admits every session
    }
    if (!(before instanceof ConfigAuthenticator previous)) {
      return "the server now requires credentials: connect again with them";
    }
    return next.noLongerAdmits(session, previous);
  }

  @Override
  public Principal authenticate(Message.Hello hello) {
    return rules.authenticate(hello);
  }

  @Override
  public SessionPolicy authorize(Principal principal) {
    return rules.authorize(principal);
  }

  @Override
  public boolean isAdmin(Principal principal) {
    return rules.isAdmin(principal);
  }

  @Override
  public Executor executor() {
    return rules.executor();
  }

  @Override
  public long generation() {
    return generation.get();
  }

  @Override
  public String toString() {
    return rules.toString();
  }
}
