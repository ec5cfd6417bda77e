package io.tablecast.server;

import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;

/**
 * Reads the configuration file of {@code tablecast serve} again when it changes, and applies its
 * {@code auth:} section while the server serves ({@link TablecastServer#replaceAuthenticator}): a
 * principal added, removed or given another password or policy takes effect without a restart,
 * which would send every client back to a snapshot. So do {@code metrics_token} (rotated) and
 * {@code allowed_origins} ({@link TablecastServer#replaceWebAccess}), for the requests and
 * WebSocket handshakes that come after. Every other key takes effect at the next start; a change to
 * one is logged as a WARN naming it, as is an {@code auth} section or a {@code metrics_token} added
 * or removed whole (an open server is not closed, nor a closed one opened, while it serves). A file
 * that cannot be used (caught half written, an error in it) is a WARN, and the server goes on with
 * the rules it has.
 */
public final class ConfigFileWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(ConfigFileWatch.class);

  /** The keys, besides {@code auth}, applied while serving. */
  private static final List<String> APPLIED_NOW = List.of("metrics_token", "allowed_origins");

  /** How often the file is looked at. */
  public static final Duration CHECK_EVERY = Duration.ofSeconds(5);

  private final Path file;
  private final UnaryOperator<ServerConfig> adjust;
  private final TablecastServer server;
  private final ScheduledExecutorService timer;
  private byte[] seen;

  /** The last look could not read the files (said once). */
  private boolean unreadable;

  /** The file as last read: keys changed from it are said once. */
  private ServerConfig lastRead;

  /** Whether the server started with an {@code auth} section: it keeps it, or its absence. */
  private final boolean withAuth;

  /** {@code metrics_token} as applied now; null: {@code /metrics} open, as at the start. */
  private String metricsToken;

  /** {@code allowed_origins} as applied now. */
  private List<String> allowedOrigins;

  private ConfigFileWatch(
      Path file, UnaryOperator<ServerConfig> adjust, ServerConfig loaded, TablecastServer server)
      throws IOException {
    this.file = file;
    this.adjust = adjust;
    this.server = server;
    this.lastRead = loaded;
    this.withAuth = loaded.authenticator() != null;
    this.metricsToken = loaded.metricsToken() == null ? null : loaded.metricsToken().value();
    this.allowedOrigins = origins(loaded);
    this.seen = fingerprint(file, keyFiles(loaded));
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-config-watch");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Watches {@code file}, from which {@code server} was started with {@code loaded} ({@code adjust}
   * applied, as the command line does to what it reads).
   */
  public static ConfigFileWatch start(
      Path file, UnaryOperator<ServerConfig> adjust, ServerConfig loaded, TablecastServer server)
      throws IOException {
    ConfigFileWatch watch = new ConfigFileWatch(file, adjust, loaded, server);
    long every = CHECK_EVERY.toMillis();
    @SuppressWarnings("unused") // ends with close()
    var unused =
        watch.timer.scheduleWithFixedDelay(
            watch::checkQuietly, every, every, TimeUnit.MILLISECONDS);
    return watch;
  }

  /** Without a schedule (tests call {@link #check()}). */
  static ConfigFileWatch unscheduled(Path file, ServerConfig loaded, TablecastServer server)
      throws IOException {
    return new ConfigFileWatch(file, UnaryOperator.identity(), loaded, server);
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      LOG.warn("Looking at the configuration file {} failed: {}", file, e.toString());
    }
  }

  /**
   * Looks at the file once: when its bytes changed, reads it and applies its {@code auth:}, {@code
   * metrics_token} and {@code allowed_origins}. Returns whether the access rules were replaced.
   */
  synchronized boolean check() {
    byte[] now;
    try {
      now = fingerprint(file, keyFiles(lastRead));
    } catch (IOException e) {
      if (!unreadable) { // once until it can be read: it is looked at every 5 s
        LOG.warn(
            "Cannot read the configuration file {} or a key file it names ({}): nothing changes",
            file,
            e.toString());
      }
      unreadable = true;
      return false;
    }
    unreadable = false;
    if (MessageDigest.isEqual(now, seen)) {
      return false;
    }
    seen = now;
    ServerConfig next;
    try {
      next = adjust.apply(ServerConfig.load(file));
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "The configuration file {} changed but cannot be used, the server goes on with what it"
              + " read before: {}",
          file,
          e.getMessage());
      return false;
    }
    List<String> later = changedBesidesAuth(lastRead, next);
    later.removeAll(APPLIED_NOW);
    lastRead = next;
    String token = next.metricsToken() == null ? null : next.metricsToken().value();
    if ((token == null) != (metricsToken == null)) {
      later.add("metrics_token (" + (token == null ? "removed" : "added") + ")");
      token = metricsToken; // /metrics is not opened, nor closed, while the server serves
    }
    if (!later.isEmpty()) {
      LOG.warn(
          "The configuration file {} changed {}: {} at the next start (auth, metrics_token and"
              + " allowed_origins are applied now)",
          file,
          String.join(", ", later),
          later.size() == 1 ? "it takes effect" : "they take effect");
    }
    List<String> origins = origins(next);
    if (!Objects.equals(token, metricsToken) || !origins.equals(allowedOrigins)) {
      server.replaceWebAccess(token, origins);
      metricsToken = token;
      allowedOrigins = origins;
    }
    if (withAuth != (next.authenticator() != null)) {
      LOG.warn(
          "The configuration file {} {} the auth section: that takes effect at the next start"
              + " (an open server is not closed, nor a closed one opened, while it serves)",
          file,
          withAuth ? "removed" : "added");
      return false;
    }
    server.replaceAuthenticator(next.authenticator());
    return true;
  }

  private static List<String> origins(ServerConfig config) {
    return config.allowedOrigins() == null ? List.of() : config.allowedOrigins();
  }

  /** The top-level keys whose values differ, {@code auth} left out. */
  static List<String> changedBesidesAuth(ServerConfig a, ServerConfig b) {
    List<String> changed = new ArrayList<>();
    for (RecordComponent c : ServerConfig.class.getRecordComponents()) {
      if (c.getName().equals("authenticator")) {
        continue;
      }
      try {
        if (!Objects.equals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
          changed.add(c.getName().replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT));
        }
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read ServerConfig." + c.getName(), e);
      }
    }
    return changed;
  }

  /**
   * The files besides the configuration file whose change reloads it: those {@code auth} read keys
   * from ({@code auth.jwt.rs256_public_key_pem}), so that a key rotated by replacing its file is
   * taken as a changed {@code auth} section is.
   */
  private static List<Path> keyFiles(ServerConfig config) {
    return config.authenticator() instanceof ConfigAuthenticator rules
        ? rules.keyFiles()
        : List.of();
  }

  private static byte[] fingerprint(Path file, List<Path> keyFiles) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
    digest.update(Files.readAllBytes(file));
    for (Path key : keyFiles) {
      digest.update(key.toString().getBytes(StandardCharsets.UTF_8));
      digest.update(Files.readAllBytes(key));
    }
    return digest.digest();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
