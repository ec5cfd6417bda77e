package io.tablecast.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.auth.AuthConfigReader;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.ByteSize;
import io.tablecast.server.config.ConfigProblems;
import io.tablecast.server.config.ListenSettings;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.Secret;
import io.tablecast.server.config.SettingsTree;
import io.tablecast.server.config.SlowConsumerSettings;
import io.tablecast.server.config.WriteBufferSettings;
import io.tablecast.server.net.TlsConfig;
import io.tablecast.server.net.WebSocketOrigins;
import io.tablecast.server.tail.TailLoop;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Immutable configuration of a {@link TablecastServer}: one component per key of the YAML file,
 * nested records for its sections. Read one with {@link #load(Path)}, or build one with {@link
 * #builder()}; {@link #DEFAULTS} holds every default, and docs/CONFIGURATION.md lists every key,
 * default and environment variable (ConfigDocTest keeps the two equal).
 *
 * @param serverName name sent to clients in the welcome and shown in logs
 * @param listen the address and port to listen on
 * @param source the database and the cached tables (required)
 * @param heartbeat a session that has been sent nothing for this long gets an empty batch
 * @param handshakeTimeout a connection must complete its hello within this time
 * @param maxFrameBytes longest inbound frame accepted from a client
 * @param resumeBuffer the batches kept for resuming clients
 * @param writeBuffer the write-buffer water marks of every client channel
 * @param slowConsumer how far a slow client may fall behind before it is dropped
 * @param idleTimeout a session from which nothing arrived for this long is closed
 * @param maxSubscriptionsPerConnection most distinct tables one connection may subscribe to
 * @param maxConnections most simultaneous connections; the next one is refused
 * @param heapReservePercent the share of the maximum heap the cached tables' images may not take:
 *     kept for serving (sessions, snapshots to clients, the resume buffer); a table whose image
 *     would reach into it is refused at start, naming the heap to give (docs/GUARANTEES.md)
 * @param staticDir directory served over HTTP GET at {@code /}; null = no static files
 * @param staticClientDir directory served over HTTP GET at {@code /client/}; null = not mapped
 * @param tls TLS on the listening port (see docs/TLS.md); null = plaintext only
 * @param authenticator who may connect and what each principal may read (the {@code auth:} section,
 *     read by {@link AuthConfigReader}); null = an open server that accepts every client and lets
 *     it read everything (logged as a WARN at start)
 * @param metricsToken bearer token {@code GET /metrics} requires; null = open to anyone
 * @param allowedOrigins the origins of the web pages, besides the server's own, that may open a
 *     WebSocket session ({@code "*"}: any); null or empty = only the server's own pages and
 *     programs that send no {@code Origin} (docs/SECURITY.md, Browsers)
 * @param nats the NATS JetStream stream of the scale-out (docs/SCALE-OUT.md): {@code serve} builds
 *     its images from it instead of the database, {@code capture} publishes to it; null = one
 *     process reads the database and serves (the default)
 */
public record ServerConfig(
    String serverName,
    ListenSettings listen,
    SourceConfig source,
    Duration heartbeat,
    Duration handshakeTimeout,
    @ByteSize int maxFrameBytes,
    ResumeBufferSettings resumeBuffer,
    WriteBufferSettings writeBuffer,
    SlowConsumerSettings slowConsumer,
    Duration idleTimeout,
    int maxSubscriptionsPerConnection,
    int maxConnections,
    int heapReservePercent,
    Path staticDir,
    Path staticClientDir,
    TlsConfig tls,
    @JsonProperty("auth") @JsonDeserialize(using = AuthConfigReader.Section.class)
        Authenticator authenticator,
    Secret metricsToken,
    List<String> allowedOrigins,
    NatsSettings nats) {

  /** Every default; {@code source} has none and must be set. */
  public static final ServerConfig DEFAULTS =
      new ServerConfig(
          "tablecast", // server_name
          ListenSettings.DEFAULTS,
          null, // source: required
          Duration.ofSeconds(1), // heartbeat
          Duration.ofSeconds(10), // handshake_timeout
          1 << 20, // max_frame_bytes: 1 MiB
          ResumeBufferSettings.DEFAULTS,
          WriteBufferSettings.DEFAULTS,
          SlowConsumerSettings.DEFAULTS,
          Duration.ofSeconds(60), // idle_timeout
          100, // max_subscriptions_per_connection
          10_000, // max_connections
          TailLoop.DEFAULT_HEAP_RESERVE_PERCENT, // heap_reserve_percent: a fifth kept for serving
          null,
          null,
          null,
          null,
          null,
          null, // allowed_origins: the server's own pages only
          null); // nats

  /** Shortest {@code metrics_token} accepted: 16 characters, e.g. 64 random bits as hex. */
  static final int MIN_METRICS_TOKEN_CHARS = 16;

  /** A builder holding {@link #DEFAULTS}; only {@code source} is required. */
  public static Builder builder() {
    return new Builder(ConfigLoader.defaults());
  }

  /** A builder holding this configuration's values. */
  public Builder toBuilder() {
    return new Builder(ConfigLoader.tree(this));
  }

  /**
   * Reads a YAML file (snake_case keys) and applies the {@code TABLECAST_*} environment variables
   * of this process over it.
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException naming the bad key or value
   */
  public static ServerConfig load(Path yamlFile) throws IOException {
    return load(yamlFile, System.getenv());
  }

  /**
   * Reads a YAML file and applies the given environment variables over it (see {@code
   * docs/CONFIGURATION.md} for the variables).
   */
  public static ServerConfig load(Path yamlFile, Map<String, String> env) throws IOException {
    return ConfigLoader.load(yamlFile, env);
  }

  /**
   * Checks every value; each failure names the key and the bad value.
   *
   * @return this configuration
   * @throws IllegalArgumentException naming the bad value, or listing the bad values
   */
  public ServerConfig validate() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw ConfigProblems.listing(problems);
    }
    return this;
  }

  /** What {@link #validate} finds wrong, each naming the key and the bad value; empty when none. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    check(
        problems,
        source != null || nats != null,
        "source must be set (jdbc_url and cached_tables), or nats to serve from a stream");
    if (nats != null) {
      try {
        nats.streamName(source == null ? null : source.jdbcUrl()); // refuses an unknown name
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    check(
        problems,
        serverName != null && !serverName.isBlank(),
        "server_name must not be empty, was '" + serverName + "'");
    check(
        problems,
        listen.host() != null && !listen.host().isBlank(),
        "listen.host must not be empty, was '" + listen.host() + "'");
    check(
        problems,
        listen.port() >= 0 && listen.port() <= 65535,
        "listen.port must be 0..65535 (0 = any free port), was " + listen.port());
    positive(problems, "heartbeat", heartbeat);
    positive(problems, "handshake_timeout", handshakeTimeout);
    atLeast(problems, "max_frame_bytes", maxFrameBytes, 1024, "");
    atLeast(problems, "resume_buffer.batches", resumeBuffer.batches(), 0, "");
    atLeast(problems, "resume_buffer.bytes", resumeBuffer.bytes(), 0, "");
    atLeast(problems, "write_buffer.low_water_mark", writeBuffer.lowWaterMark(), 1, "");
    atLeast(
        problems,
        "write_buffer.high_water_mark",
        writeBuffer.highWaterMark(),
        writeBuffer.lowWaterMark(),
        " (low_water_mark)");
    atLeast(
        problems,
        "slow_consumer.max_pending_bytes",
        slowConsumer.maxPendingBytes(),
        writeBuffer.highWaterMark(),
        " (write_buffer.high_water_mark)");
    atLeast(
        problems,
        "slow_consumer.coalesce_max_keys",
        slowConsumer.coalesceMaxKeys(),
        0,
        " (0 = no coalescing)");
    atLeast(
        problems, "slow_consumer.coalesce_max_bytes", slowConsumer.coalesceMaxBytes(), 1024, "");
    positive(problems, "slow_consumer.snapshot_timeout", slowConsumer.snapshotTimeout());
    positive(problems, "idle_timeout", idleTimeout);
    check(
        problems,
        idleTimeout == null || heartbeat == null || idleTimeout.compareTo(heartbeat) >= 0,
        "idle_timeout must be at least the heartbeat (" + heartbeat + "), was " + idleTimeout);
    atLeast(problems, "max_subscriptions_per_connection", maxSubscriptionsPerConnection, 1, "");
    atLeast(problems, "max_connections", maxConnections, 1, "");
    check(
        problems,
        heapReservePercent >= 0 && heapReservePercent <= 90,
        "heap_reserve_percent must be 0..90, was " + heapReservePercent);
    for (String origin : allowedOrigins == null ? List.<String>of() : allowedOrigins) {
      check(
          problems,
          origin != null && (origin.equals("*") || WebSocketOrigins.isOrigin(origin)),
          "allowed_origins: "
              + origin
              + " is not an origin: scheme://host[:port], http or https, no path (or \"*\")");
    }
    directory(problems, "static_dir", staticDir);
    directory(problems, "static_client_dir", staticClientDir);
    check(
        problems,
        metricsToken == null || metricsToken.value().length() >= MIN_METRICS_TOKEN_CHARS,
        "metrics_token must be "
            + "at least "
            + MIN_METRICS_TOKEN_CHARS
            + " characters (a random one: openssl rand -hex 16), was "
            + (metricsToken == null ? 0 : metricsToken.value().length()));
    return problems;
  }

  private static void check(List<String> problems, boolean ok, String problem) {
    if (!ok) {
      problems.add(problem);
    }
  }

  private static void atLeast(
      List<String> problems, String key, long value, long min, String what) {
    check(problems, value >= min, key + " must be at least " + min + what + ", was " + value);
  }

  private static void directory(List<String> problems, String key, Path dir) {
    check(
        problems,
        dir == null || Files.isDirectory(dir),
        key + " must be an existing directory, was '" + dir + "'");
  }

  private static void positive(List<String> problems, String key, Duration d) {
    check(
        problems,
        d != null && !d.isZero() && !d.isNegative(),
        key + " must be a positive duration, was " + d);
  }

  /**
   * Builds a {@link ServerConfig} from settings named by their YAML keys, over {@link #DEFAULTS} or
   * another configuration; {@link #build()} validates every value. Not thread-safe.
   *
   * <pre>{@code
   * ServerConfig.builder().source(source).listen("127.0.0.1", 0)
   *     .set("slow_consumer.coalesce_max_keys", 1000).set("heartbeat", Duration.ofMillis(200)).build();
   * }</pre>
   */
  public static final class Builder {
    private final ObjectNode settings;

    private Builder(ObjectNode settings) {
      this.settings = settings;
    }

    /**
     * Sets the setting at {@code key} ({@code heartbeat}, {@code slow_consumer.coalesce_max_keys},
     * as in the YAML file) to {@code value}: text as the file would have it ({@code "500ms"}), a
     * number, a boolean, or the Java value ({@link Duration}, {@link Path}, a settings record,
     * {@link SourceConfig}, {@link TlsConfig}, {@link Authenticator}); null restores the default.
     * An unknown key is refused by {@link #build()}.
     */
    public Builder set(String key, Object value) {
      SettingsTree.put(settings, key, value);
      return this;
    }

    /** The database and the cached tables. */
    public Builder source(SourceConfig source) {
      return set("source", source);
    }

    /** Address and port to listen on; port 0 picks a free port. */
    public Builder listen(String host, int port) {
      return set("listen", new ListenSettings(host, port));
    }

    /**
     * Validates and builds.
     *
     * @throws IllegalArgumentException naming the bad key or value
     */
    public ServerConfig build() {
      return ConfigLoader.bind(settings.deepCopy(), Map.of());
    }
  }
}
