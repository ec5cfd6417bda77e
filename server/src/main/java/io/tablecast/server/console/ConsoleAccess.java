package io.tablecast.server.console;

import io.tablecast.protocol.Message;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.auth.Principal;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may read the operations console. With an {@code auth} section: admin principals only ({@code
 * auth.principals[].admin: true}), by HTTP Basic with their password (the browser asks for it and
 * sends it with every request of the page) or a bearer JWT; others are refused ({@code 403}).
 * Without {@code auth} but with {@code metrics_token}: that token, as a bearer token or as the
 * Basic password (any user name). With neither: everyone, like the rest of an open server.
 *
 * <p>A password check costs a PBKDF2 verification (about 100 ms) on the authenticator's own pool,
 * never on the calling thread. The page asks every second or two, so a verified Basic header is
 * remembered for {@link #REMEMBER_MILLIS}: by an HMAC of it under a key made at start, never the
 * password itself. Thread-safe.
 */
public final class ConsoleAccess {

  /** How long a verified Basic header is accepted without a new password check. */
  static final long REMEMBER_MILLIS = 60_000;

  /** Most remembered headers; past it they are all forgotten (each costs one check again). */
  static final int REMEMBER_MAX = 256;

  static final String CHALLENGE = "Basic realm=\"Tablecast console\", charset=\"UTF-8\"";

  /**
   * The outcome of a check.
   *
   * @param status 200 (allowed), 401 (no or bad credentials), 403 (not an admin), 503 (too busy)
   * @param principal who asked, when known
   * @param message what was wrong, for the reply; null when allowed
   */
  public record Verdict(int status, String principal, String message) {
    /** Whether the request may be answered. */
    public boolean allowed() {
      return status == 200;
    }
  }

  private enum Mode {
    OPEN,
    TOKEN,
    PRINCIPALS
  }

  private final Mode mode;
  private final Authenticator authenticator;
  private final Supplier<String> token;
  private final byte[] hmacKey = new byte[32];
  private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

  /** A verdict kept for a while; {@code rules} is the generation of the rules that gave it. */
  private record Remembered(String principal, boolean admin, long untilNanos, long rules) {}

  private ConsoleAccess(Mode mode, Authenticator authenticator, Supplier<String> token) {
    this.mode = mode;
    this.authenticator = authenticator;
    this.token = token;
    new SecureRandom().nextBytes(hmacKey);
  }

  /**
   * The rule of a server: its principals when it has an {@code auth} section ({@code authenticator}
   * non-null), else its {@code metrics_token}, else open.
   */
  public static ConsoleAccess of(Authenticator authenticator, String metricsToken) {
    return following(authenticator, () -> metricsToken);
  }

  /**
   * As {@link #of(Authenticator, String)}, with the {@code metrics_token} of each moment (replaced
   * while the server serves); whether there is one is decided now.
   */
  public static ConsoleAccess following(
      Authenticator authenticator, Supplier<String> metricsToken) {
    if (authenticator != null) {
      return new ConsoleAccess(Mode.PRINCIPALS, authenticator, null);
    }
    if (metricsToken.get() != null) {
      return new ConsoleAccess(Mode.TOKEN, null, metricsToken);
    }
    return new ConsoleAccess(Mode.OPEN, null, null);
  }

  /** What this rule is, for the page: {@code principals}, {@code token} or {@code open}. */
  public String describe() {
    return switch (mode) {
      case OPEN -> "open";
      case TOKEN -> "token";
      case PRINCIPALS -> "principals";
    };
  }

  /** Checks a request's {@code Authorization} header (null when it has none). */
  public CompletableFuture<Verdict> check(String authorization) {
    return switch (mode) {
      case OPEN -> CompletableFuture.completedFuture(new Verdict(200, "anonymous", null));
      case TOKEN -> CompletableFuture.completedFuture(checkToken(authorization));
      case PRINCIPALS -> checkPrincipal(authorization);
    };
  }

  private Verdict checkToken(String authorization) {
    String presented = null;
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      presented = authorization.substring(7).trim();
    } else {
      String[] basic = basic(authorization);
      if (basic != null) {
        presented = basic[1];
      }
    }
    String now = token.get();
    if (presented != null
        && now != null
        && MessageDigest.isEqual(
            presented.getBytes(StandardCharsets.UTF_8), now.getBytes(StandardCharsets.UTF_8))) {
      return new Verdict(200, "metrics_token", null);
    }
    return new Verdict(
        401, null, "the console needs the server's metrics_token (as the password, or a bearer)");
  }

  private CompletableFuture<Verdict> checkPrincipal(String authorization) {
    Message.Hello hello;
    String key = null;
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      hello = hello(null, null, authorization.substring(7).trim());
    } else {
      String[] basic = basic(authorization);
      if (basic == null) {
        return CompletableFuture.completedFuture(
            new Verdict(401, null, "log in as an admin principal (auth.principals[].admin)"));
      }
      key = hmac(authorization);
      Remembered r = remembered.get(key);
      if (r != null
          && System.nanoTime() - r.untilNanos() < 0
          && r.rules() == authenticator.generation()) { // the rules changed since: checked again
        return CompletableFuture.completedFuture(verdict(r.principal(), r.admin()));
      }
      hello = hello(basic[0], basic[1], null);
    }
    String rememberAs = key;
    try {
      return CompletableFuture.supplyAsync(
          () -> verify(hello, rememberAs), authenticator.executor());
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(
          new Verdict(503, null, "too many credential checks at once; try again"));
    }
  }

  private Verdict verify(Message.Hello hello, String rememberAs) {
    long rules = authenticator.generation();
    Principal principal;
    try {
      principal = authenticator.authenticate(hello);
    } catch (SecurityException e) {
      return new Verdict(401, null, e.getMessage());
    }
    boolean admin = authenticator.isAdmin(principal);
    if (rememberAs != null) {
      if (remembered.size() >= REMEMBER_MAX) {
        remembered.clear();
      }
      remembered.put(
          rememberAs,
          new Remembered(
              principal.name(),
              admin,
              System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REMEMBER_MILLIS),
              rules));
    }
    return verdict(principal.name(), admin);
  }

  private static Verdict verdict(String principal, boolean admin) {
    return admin
        ? new Verdict(200, principal, null)
        : new Verdict(
            403,
            principal,
            "principal '"
                + principal
                + "' may not open the console: it is not an admin (auth.principals[].admin)");
  }

  private static Message.Hello hello(String user, String password, String jwt) {
    return new Message.Hello(Message.PROTOCOL_VERSION, "console", user, password, jwt);
  }

  /** User and password of a Basic header, or null when it is absent or malformed. */
  static String[] basic(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      return null;
    }
    String decoded;
    try {
      decoded =
          new String(
              Base64.getDecoder().decode(authorization.substring(6).trim()),
              StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
    int colon = decoded.indexOf(':');
    return colon < 0
        ? null
        : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
  }

  private String hmac(String authorization) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(hmacKey, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(authorization.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
