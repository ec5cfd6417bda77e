package io.tablecast.server.auth;

import io.tablecast.protocol.Message;
import io.tablecast.server.capture.TableSchema;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The authenticator of the {@code auth:} configuration section: principals with PBKDF2 password
 * hashes, and/or JWTs (HS256/RS256), each principal with an {@link AccessPolicy}.
 *
 * <p>A hello with a {@code token} is checked as a JWT; otherwise {@code user} and {@code password}
 * are required. An unknown user is verified against a dummy hash of the same cost as the real ones,
 * and the answer is the same message, so neither the reply nor its timing tells whether a name
 * exists. Verification runs on a small shared pool ({@link #executor()}), never on an event loop.
 *
 * <p>The policy of a JWT principal is that of the configured principal with the same name (one
 * without {@code password_hash} serves only tokens), else {@code jwt.default_policy}; with neither,
 * the token is refused ({@code no_policy}): a valid signature alone grants nothing. ({@code
 * default_policy: {}} grants every table, row and column, when that is what is wanted.)
 */
public final class ConfigAuthenticator implements Authenticator {

  /** Generic answer to a wrong password and to an unknown user alike. */
  static final String BAD_CREDENTIALS = "authentication failed: unknown user or wrong password";

  /** Checks a password against a hash; {@link PasswordHasher#verify} outside tests. */
  @FunctionalInterface
  interface PasswordCheck {
    boolean verify(char[] password, String hash);
  }

  /**
   * One configured principal.
   *
   * @param name user name (or JWT principal name)
   * @param passwordHash a {@link PasswordHasher} hash, or null for a principal that only logs in
   *     with tokens
   * @param policy what it may read
   * @param admin whether it may open the operations console ({@code /console})
   */
  public record PrincipalEntry(
      String name, String passwordHash, AccessPolicy policy, boolean admin) {

    /** A principal that is not an admin. */
    public PrincipalEntry(String name, String passwordHash, AccessPolicy policy) {
      this(name, passwordHash, policy, false);
    }
  }

  private static final ThreadPoolExecutor POOL = pool();

  private final Map<String, PrincipalEntry> principals = new LinkedHashMap<>();
  private final JwtVerifier jwt;
  private final AccessPolicy jwtDefaultPolicy;
  private final String dummyHash;
  private final PasswordCheck passwords;

  /** The files the rules' keys were read from ({@link #keyFiles}). */
  private final List<Path> keyFiles;

  /**
   * @param principals configured principals (unique names)
   * @param jwt token verifier, or null when tokens are not accepted
   * @param jwtDefaultPolicy policy of JWT principals without an entry; null = such tokens are
   *     refused
   * @throws IllegalArgumentException on a duplicate name or a bad hash, naming the principal
   */
  public ConfigAuthenticator(
      List<PrincipalEntry> principals, JwtVerifier jwt, AccessPolicy jwtDefaultPolicy) {
    this(principals, jwt, jwtDefaultPolicy, List.of());
  }

  /**
   * As above; {@code keyFiles} are the files the keys of {@code jwt} were read from ({@code
   * auth.jwt.rs256_public_key_pem}), which the server watches beside its configuration file.
   */
  public ConfigAuthenticator(
      List<PrincipalEntry> principals,
      JwtVerifier jwt,
      AccessPolicy jwtDefaultPolicy,
      List<Path> keyFiles) {
    this(principals, jwt, jwtDefaultPolicy, PasswordHasher::verify, keyFiles);
  }

  ConfigAuthenticator(
      List<PrincipalEntry> principals,
      JwtVerifier jwt,
      AccessPolicy jwtDefaultPolicy,
      PasswordCheck passwords) {
    this(principals, jwt, jwtDefaultPolicy, passwords, List.of());
  }

  private ConfigAuthenticator(
      List<PrincipalEntry> principals,
      JwtVerifier jwt,
      AccessPolicy jwtDefaultPolicy,
      PasswordCheck passwords,
      List<Path> keyFiles) {
    this.keyFiles = List.copyOf(keyFiles);
    int iterations = PasswordHasher.MIN_ITERATIONS;
    for (PrincipalEntry p : principals) {
      if (this.principals.put(p.name(), p) != null) {
        throw new IllegalArgumentException(
            "auth.principals: the name '" + p.name() + "' appears twice");
      }
      if (p.passwordHash() != null) {
        try {
          iterations = Math.max(iterations, PasswordHasher.iterations(p.passwordHash()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "auth.principals[" + p.name() + "].password_hash: " + e.getMessage(), e);
        }
      }
    }
    this.jwt = jwt;
    this.jwtDefaultPolicy = jwtDefaultPolicy;
    this.passwords = passwords;
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    // as costly as the costliest real hash, so that unknown names take as long as known ones
    this.dummyHash =
        PasswordHasher.hash(Base64.getEncoder().encodeToString(random).toCharArray(), iterations);
  }

  @Override
  public Principal authenticate(Message.Hello hello) {
    if (hello.token() != null && !hello.token().isBlank()) {
      if (jwt == null) {
        throw new AuthenticationException(
            "bad_token", "authentication failed: this server does not accept tokens");
      }
      return jwt.verify(hello.token());
    }
    if (hello.user() == null || hello.password() == null || hello.password().isEmpty()) {
      throw new AuthenticationException(
          "missing_credentials",
          "authentication required: send user and "
              + "password"
              + (jwt != null ? ", or a token," : "")
              + " in hello");
    }
    PrincipalEntry entry = principals.get(hello.user());
    boolean known = entry != null && entry.passwordHash() != null;
    // always one full verification: an unknown name costs the same as a wrong password
    boolean ok =
        passwords.verify(hello.password().toCharArray(), known ? entry.passwordHash() : dummyHash);
    if (!ok || !known) {
      throw new AuthenticationException("bad_credentials", BAD_CREDENTIALS);
    }
    return new Principal(entry.name(), Map.of("sub", entry.name()));
  }

  @Override
  public SessionPolicy authorize(Principal principal) {
    PrincipalEntry entry = principals.get(principal.name());
    if (entry != null) {
      return entry.policy().resolve(principal);
    }
    if (jwtDefaultPolicy == null) {
      throw new AuthenticationException(
          "no_policy",
          "authentication failed: principal '"
              + principal.name()
              + "' has no entry in auth.principals and the server sets no auth.jwt.default_policy");
    }
    return jwtDefaultPolicy.resolve(principal);
  }

  /**
   * Starts fetching the keys of {@code auth.jwt.jwks_url}, if set, in the background (a server that
   * starts serving with these rules calls it; commands that only read the configuration do not).
   */
  public void fetchKeysInBackground() {
    if (jwt != null) {
      jwt.fetchKeysInBackground();
    }
  }

  /**
   * Why these rules no longer admit {@code session}, admitted under {@code before}, or null when
   * they do with the same policy: a password session whose principal is gone or whose password
   * changed, a token session when tokens are no longer taken, and either when the policy it would
   * get now differs (tables, row filter or columns).
   */
  String noLongerAdmits(Admission session, ConfigAuthenticator before) {
    Principal p = session.principal();
    if (session.viaToken()) {
      if (jwt == null) {
        return "the server no longer accepts tokens";
      }
    } else {
      PrincipalEntry now = principals.get(p.name());
      PrincipalEntry then = before.principals.get(p.name());
      if (now == null || now.passwordHash() == null) {
        return "principal '" + p.name() + "' was removed from the server's access rules";
      }
      if (then == null || !now.passwordHash().equals(then.passwordHash())) {
        return "the password of principal '"
            + p.name()
            + "' changed: connect again with the new one";
      }
    }
    SessionPolicy policy;
    try {
      policy = authorize(p);
    } catch (SecurityException e) {
      return e.getMessage();
    }
    return policy.equals(session.policy())
        ? null
        : "what principal '" + p.name() + "' may read changed: connect again";
  }

  /**
   * Whether {@code principal} has an entry in {@code auth.principals} with {@code admin: true}
   * (also for a token principal: a token's own claims never make it an admin).
   */
  /**
   * The files these rules' keys were read from: a key rotated by replacing its file is read again
   * with the configuration ({@code ConfigFileWatch}).
   */
  public List<Path> keyFiles() {
    return keyFiles;
  }

  @Override
  public boolean isAdmin(Principal principal) {
    PrincipalEntry entry = principals.get(principal.name());
    return entry != null && entry.admin();
  }

  @Override
  public Executor executor() {
    return POOL;
  }

  /** The hash unknown names are verified against (for tests). */
  String dummyHash() {
    return dummyHash;
  }

  /** The configured principals' names, for the start-up log. */
  public List<String> principalNames() {
    return List.copyOf(principals.keySet());
  }

  /** Whether tokens are accepted. */
  public boolean acceptsTokens() {
    return jwt != null;
  }

  /**
   * Checks that may wait per pool thread: about 3 to 6 s of PBKDF2 work, within the handshake
   * timeout.
   */
  static final int QUEUED_CHECKS_PER_THREAD = 32;

  /**
   * Threads for PBKDF2, which is pure CPU work (about 100 to 200 ms a check): half the cores, 1 to
   * 8, so that a storm of hellos leaves the other half to the event loops and the hub.
   */
  static int poolThreads(int cores) {
    return Math.max(1, Math.min(8, cores / 2));
  }

  /**
   * Daemon threads ({@link #poolThreads}) with a short bounded queue ({@link
   * #QUEUED_CHECKS_PER_THREAD} per thread): a check still waits less than the default handshake
   * timeout, and a flood of hellos beyond that is refused at once (the handler answers INTERNAL,
   * "too busy") rather than queued for checks whose clients are long gone. A check whose connection
   * closed while it waited is skipped by the session handler.
   */
  private static ThreadPoolExecutor pool() {
    int threads = poolThreads(Runtime.getRuntime().availableProcessors());
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(threads * QUEUED_CHECKS_PER_THREAD),
            r -> {
              Thread t = new Thread(r, "tablecast-auth");
              t.setDaemon(true);
              return t;
            });
    return p;
  }

  @Override
  public String toString() {
    return "ConfigAuthenticator[principals="
        + principals.keySet()
        + ", tokens="
        + (jwt != null)
        + "]";
  }

  /**
   * What the policies of this configuration name that the cached tables do not have ({@link
   * PolicyReferences}), one warning each: told at start and by {@code tablecast check}.
   *
   * @param cached the cached tables, with their cached columns
   */
  public List<String> policyWarnings(List<TableSchema> cached) {
    Map<String, Set<String>> tables = new TreeMap<>();
    for (TableSchema t : cached) {
      Set<String> columns = new TreeSet<>();
      t.columns().forEach(c -> columns.add(c.name()));
      tables.put(t.id().qualified(), columns);
    }
    List<String> warnings = new ArrayList<>();
    principals
        .values()
        .forEach(
            p ->
                warnings.addAll(
                    PolicyReferences.of("auth.principals '" + p.name() + "'", p.policy(), tables)));
    if (jwtDefaultPolicy != null) {
      warnings.addAll(PolicyReferences.of("auth.jwt.default_policy", jwtDefaultPolicy, tables));
    }
    return warnings;
  }
}
