package io.tablecast.server;

import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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
 * the rules it has ({@link WatchedConfigFile}).
 */
public final class ConfigFileWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(ConfigFileWatch.class);

  /** The keys, besides {@code auth}, applied while serving. */
  private static final List<String> APPLIED_NOW = List.of("metrics_token", "allowed_origins");

  /** How often the file is looked at. */
  public static final Duration CHECK_EVERY = WatchedConfigFile.CHECK_EVERY;

  private final TablecastServer server;
  private final WatchedConfigFile file;

  /** Whether the server started with an {@code auth} section: it keeps it, or its absence. */
  private final boolean withAuth;

  /** {@code metrics_token} as applied now; null: {@code /metrics} open, as at the start. */
  private String metricsToken;

  /** {@code allowed_origins} as applied now. */
  private List<String> allowedOrigins;

  private ConfigFileWatch(
      Path file, UnaryOperator<ServerConfig> adjust, ServerConfig loaded, TablecastServer server)
      throws IOException {
    this.server = server;
    this.withAuth = loaded.authenticator() != null;
    this.metricsToken = WatchedConfigFile.metricsToken(loaded);
    this.allowedOrigins = origins(loaded);
    this.file =
        new WatchedConfigFile(file, adjust, loaded, ConfigFileWatch::keyFiles, this::changed);
  }

  /**
   * Watches {@code file}, from which {@code server} was started with {@code loaded} ({@code adjust}
   * applied, as the command line does to what it reads).
   */
  public static ConfigFileWatch start(
      Path file, UnaryOperator<ServerConfig> adjust, ServerConfig loaded, TablecastServer server)
      throws IOException {
    ConfigFileWatch watch = new ConfigFileWatch(file, adjust, loaded, server);
    watch.file.schedule();
    return watch;
  }

  /** Without a schedule (tests call {@link #check()}). */
  static ConfigFileWatch unscheduled(Path file, ServerConfig loaded, TablecastServer server)
      throws IOException {
    return new ConfigFileWatch(file, UnaryOperator.identity(), loaded, server);
  }

  /**
   * Looks at the file once: when its bytes changed, reads it and applies its {@code auth:}, {@code
   * metrics_token} and {@code allowed_origins}. Returns whether the access rules were replaced.
   */
  boolean check() {
    return file.check();
  }

  private boolean changed(ServerConfig before, ServerConfig next) {
    List<String> later = WatchedConfigFile.changedBesidesAuth(before, next);
    later.removeAll(APPLIED_NOW);
    String token = WatchedConfigFile.metricsTokenToApply(next, metricsToken, later);
    file.warnAppliedLater(
        LOG, later, "at the next start (auth, metrics_token and allowed_origins are applied now)");
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
          file.file(),
          withAuth ? "removed" : "added");
      return false;
    }
    server.replaceAuthenticator(next.authenticator());
    return true;
  }

  private static List<String> origins(ServerConfig config) {
    return config.allowedOrigins() == null ? List.of() : config.allowedOrigins();
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

  @Override
  public void close() {
    file.close();
  }
}
