package io.tablecast.server;

import io.tablecast.server.capture.SourceConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable configuration of a {@link TablecastServer}. Build one with {@link #builder()} or
 * read one from YAML with {@link #load(Path)}; every key, default and environment variable is
 * listed in {@code docs/CONFIGURATION.md}.
 */
public final class ServerConfig {

  /** Default for {@link #serverName()}. */
  public static final String DEFAULT_SERVER_NAME = "tablecast";
  /** Default for {@link #listenHost()}: every interface. */
  public static final String DEFAULT_LISTEN_HOST = "0.0.0.0";
  /** Default for {@link #listenPort()}. */
  public static final int DEFAULT_LISTEN_PORT = 7070;
  /** Default for {@link #heartbeat()}: one second. */
  public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
  /** Default for {@link #handshakeTimeout()}: ten seconds. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
  /** Default for {@link #maxFrameBytes()}: 1 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;
  /** Default for {@link #resumeBufferBatches()}. */
  public static final int DEFAULT_RESUME_BUFFER_BATCHES = 100_000;
  /** Default for {@link #resumeBufferBytes()}: 256 MiB (approximate). */
  public static final long DEFAULT_RESUME_BUFFER_BYTES = 256L << 20;
  /** Default for {@link #writeBufferLowWaterMark()}: 256 KiB. */
  public static final int DEFAULT_WRITE_BUFFER_LOW_WATER_MARK = 256 << 10;
  /** Default for {@link #writeBufferHighWaterMark()}: 1 MiB. */
  public static final int DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK = 1 << 20;
  /** Default for {@link #slowConsumerMaxPendingBytes()}: 64 MiB. */
  public static final long DEFAULT_SLOW_CONSUMER_MAX_PENDING_BYTES = 64L << 20;
  /** Default for {@link #slowConsumerCoalesceMaxKeys()}: 100000 keys; 0 disables coalescing. */
  public static final int DEFAULT_SLOW_CONSUMER_COALESCE_MAX_KEYS = 100_000;
  /** Default for {@link #slowConsumerCoalesceMaxBytes()}: 16 MiB (approximate). */
  public static final long DEFAULT_SLOW_CONSUMER_COALESCE_MAX_BYTES = 16L << 20;
  /** Default for {@link #slowConsumerSnapshotTimeout()}: five minutes. */
  public static final Duration DEFAULT_SLOW_CONSUMER_SNAPSHOT_TIMEOUT = Duration.ofMinutes(5);
  /** Default for {@link #idleTimeout()}: 60 seconds. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
  /** Default for {@link #maxSubscriptionsPerConnection()}: 100 tables. */
  public static final int DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
  /** Default for {@link #maxConnections()}: 10000. */
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

  private final String serverName;
  private final String listenHost;
  private final int listenPort;
  private final SourceConfig source;
  private final Duration heartbeat;
  private final Duration handshakeTimeout;
  private final int maxFrameBytes;
  private final int resumeBufferBatches;
  private final long resumeBufferBytes;
  private final int writeBufferLowWaterMark;
  private final int writeBufferHighWaterMark;
  private final long slowConsumerMaxPendingBytes;
  private final int slowConsumerCoalesceMaxKeys;
  private final long slowConsumerCoalesceMaxBytes;
  private final Duration slowConsumerSnapshotTimeout;
  private final Duration idleTimeout;
  private final int maxSubscriptionsPerConnection;
  private final int maxConnections;
  private final Path staticDir;
  private final Path staticClientDir;
  private final io.tablecast.server.net.TlsConfig tls;
  private final Authenticator authenticator;
  private final String metricsToken;

  private ServerConfig(Builder b) {
    this.authenticator = b.authenticator;
    this.serverName = b.serverName;
    this.listenHost = b.listenHost;
    this.listenPort = b.listenPort;
    this.source = b.source;
    this.heartbeat = b.heartbeat;
    this.handshakeTimeout = b.handshakeTimeout;
    this.maxFrameBytes = b.maxFrameBytes;
    this.resumeBufferBatches = b.resumeBufferBatches;
    this.resumeBufferBytes = b.resumeBufferBytes;
    this.writeBufferLowWaterMark = b.writeBufferLowWaterMark;
    this.writeBufferHighWaterMark = b.writeBufferHighWaterMark;
    this.slowConsumerMaxPendingBytes = b.slowConsumerMaxPendingBytes;
    this.slowConsumerCoalesceMaxKeys = b.slowConsumerCoalesceMaxKeys;
    this.slowConsumerCoalesceMaxBytes = b.slowConsumerCoalesceMaxBytes;
    this.slowConsumerSnapshotTimeout = b.slowConsumerSnapshotTimeout;
    this.idleTimeout = b.idleTimeout;
    this.maxSubscriptionsPerConnection = b.maxSubscriptionsPerConnection;
    this.maxConnections = b.maxConnections;
    this.staticDir = b.staticDir;
    this.staticClientDir = b.staticClientDir;
    this.tls = b.tls;
    this.metricsToken = b.metricsToken;
  }

  /** A builder with every default set; only {@link Builder#source} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads a YAML file (snake_case keys) and applies the {@code TABLECAST_*} environment
   * variables of this process over it.
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException naming the bad key or value
   */
  public static ServerConfig load(Path yamlFile) throws IOException {
    return load(yamlFile, System.getenv());
  }

  /**
   * Reads a YAML file and applies the given environment variables over it (see
   * {@code docs/CONFIGURATION.md} for the variables).
   */
  public static ServerConfig load(Path yamlFile, Map<String, String> env) throws IOException {
    return ConfigLoader.load(yamlFile, env);
  }

  /** A builder holding this configuration's values. */
  public Builder toBuilder() {
    return new Builder().serverName(serverName).listen(listenHost, listenPort).source(source)
        .heartbeat(heartbeat).handshakeTimeout(handshakeTimeout).maxFrameBytes(maxFrameBytes)
        .resumeBuffer(resumeBufferBatches, resumeBufferBytes)
        .writeBufferWaterMarks(writeBufferLowWaterMark, writeBufferHighWaterMark)
        .slowConsumerMaxPendingBytes(slowConsumerMaxPendingBytes)
        .slowConsumerCoalesceMaxKeys(slowConsumerCoalesceMaxKeys)
        .slowConsumerCoalesceMaxBytes(slowConsumerCoalesceMaxBytes)
        .slowConsumerSnapshotTimeout(slowConsumerSnapshotTimeout).idleTimeout(idleTimeout)
        .maxSubscriptionsPerConnection(maxSubscriptionsPerConnection).maxConnections(maxConnections)
        .staticDir(staticDir).staticClientDir(staticClientDir).tls(tls)
        .authenticator(authenticator).metricsToken(metricsToken);
  }

  /** Name sent to clients in the welcome and shown in logs. */
  public String serverName() {
    return serverName;
  }

  /** Address to listen on. */
  public String listenHost() {
    return listenHost;
  }

  /** TCP port to listen on; 0 picks a free port (see {@link TablecastServer#port()}). */
  public int listenPort() {
    return listenPort;
  }

  /** The database and the cached tables. */
  public SourceConfig source() {
    return source;
  }

  /** A session that has been sent nothing for this long gets an empty batch. */
  public Duration heartbeat() {
    return heartbeat;
  }

  /** A connection must complete its hello within this time. */
  public Duration handshakeTimeout() {
    return handshakeTimeout;
  }

  /** Longest inbound frame accepted from a client. */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /** Most recent batches kept for resuming clients. */
  public int resumeBufferBatches() {
    return resumeBufferBatches;
  }

  /** Approximate byte bound of the resume buffer. */
  public long resumeBufferBytes() {
    return resumeBufferBytes;
  }

  /** A channel becomes writable again when its pending bytes fall below this. */
  public int writeBufferLowWaterMark() {
    return writeBufferLowWaterMark;
  }

  /** A channel becomes unwritable when its pending bytes exceed this. */
  public int writeBufferHighWaterMark() {
    return writeBufferHighWaterMark;
  }

  /** A session with more pending outbound bytes is disconnected with SLOW_CONSUMER. */
  public long slowConsumerMaxPendingBytes() {
    return slowConsumerMaxPendingBytes;
  }

  /**
   * While a session's channel is unwritable its changes are coalesced per key; past this many
   * distinct keys it is disconnected with SLOW_CONSUMER ({@code slow_consumer.coalesce_max_keys};
   * 0 = no coalescing).
   */
  public int slowConsumerCoalesceMaxKeys() {
    return slowConsumerCoalesceMaxKeys;
  }

  /**
   * Past this many approximate bytes of coalesced changes, or when its coalesced batch would
   * encode to more, a session is disconnected with SLOW_CONSUMER
   * ({@code slow_consumer.coalesce_max_bytes}); so no coalesced frame is larger.
   */
  public long slowConsumerCoalesceMaxBytes() {
    return slowConsumerCoalesceMaxBytes;
  }

  /**
   * A session that has not read its whole snapshot or resume replay within this time is
   * disconnected with SLOW_CONSUMER ({@code slow_consumer.snapshot_timeout}).
   */
  public Duration slowConsumerSnapshotTimeout() {
    return slowConsumerSnapshotTimeout;
  }

  /** A session from which nothing arrived for this long is closed ({@code idle_timeout}). */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** Most distinct table names one connection may subscribe to ({@code max_subscriptions_per_connection}). */
  public int maxSubscriptionsPerConnection() {
    return maxSubscriptionsPerConnection;
  }

  /** Most simultaneous connections ({@code max_connections}); the next one is refused. */
  public int maxConnections() {
    return maxConnections;
  }

  /** Directory served over HTTP GET at {@code /} ({@code static_dir}); null = no static files. */
  public Path staticDir() {
    return staticDir;
  }

  /** Directory served over HTTP GET at {@code /client/} ({@code static_client_dir}); null = not mapped. */
  public Path staticClientDir() {
    return staticClientDir;
  }

  /** TLS on the listening port ({@code tls}, see docs/TLS.md); null = plaintext only. */
  public io.tablecast.server.net.TlsConfig tls() {
    return tls;
  }

  /**
   * Who may connect and what each principal may read (the {@code auth:} section, usually an
   * {@link io.tablecast.server.auth.ConfigAuthenticator}); null = an open server that accepts
   * every client and lets it read everything (logged as a WARN at start).
   */
  public Authenticator authenticator() {
    return authenticator;
  }

  /** Bearer token {@code GET /metrics} requires ({@code metrics_token}); null = open to anyone. */
  public String metricsToken() {
    return metricsToken;
  }

  @Override
  public String toString() {
    return "ServerConfig[serverName=" + serverName + ", listen=" + listenHost + ":" + listenPort
        + ", source=" + source + ", heartbeat=" + heartbeat + ", handshakeTimeout=" + handshakeTimeout
        + ", maxFrameBytes=" + maxFrameBytes + ", resumeBuffer=" + resumeBufferBatches + " batches/"
        + resumeBufferBytes + " bytes, writeBuffer=" + writeBufferLowWaterMark + ".."
        + writeBufferHighWaterMark + ", slowConsumerMaxPendingBytes=" + slowConsumerMaxPendingBytes
        + ", slowConsumerCoalesceMaxKeys=" + slowConsumerCoalesceMaxKeys
        + ", slowConsumerCoalesceMaxBytes=" + slowConsumerCoalesceMaxBytes
        + ", slowConsumerSnapshotTimeout=" + slowConsumerSnapshotTimeout + ", idleTimeout=" + idleTimeout
        + ", maxSubscriptionsPerConnection=" + maxSubscriptionsPerConnection + ", maxConnections=" + maxConnections
        + (staticDir == null ? "" : ", staticDir=" + staticDir)
        + (staticClientDir == null ? "" : ", staticClientDir=" + staticClientDir)
        + (tls == null ? "" : ", tls=" + tls) + (metricsToken == null ? "" : ", metricsToken=(set)") + "]";
  }

  /** Builds a {@link ServerConfig}; {@link #build()} validates every value. Not thread-safe. */
  public static final class Builder {
    private String serverName = DEFAULT_SERVER_NAME;
    private String listenHost = DEFAULT_LISTEN_HOST;
    private int listenPort = DEFAULT_LISTEN_PORT;
    private SourceConfig source;
    private Duration heartbeat = DEFAULT_HEARTBEAT;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
    private int resumeBufferBatches = DEFAULT_RESUME_BUFFER_BATCHES;
    private long resumeBufferBytes = DEFAULT_RESUME_BUFFER_BYTES;
    private int writeBufferLowWaterMark = DEFAULT_WRITE_BUFFER_LOW_WATER_MARK;
    private int writeBufferHighWaterMark = DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK;
    private long slowConsumerMaxPendingBytes = DEFAULT_SLOW_CONSUMER_MAX_PENDING_BYTES;
    private int slowConsumerCoalesceMaxKeys = DEFAULT_SLOW_CONSUMER_COALESCE_MAX_KEYS;
    private long slowConsumerCoalesceMaxBytes = DEFAULT_SLOW_CONSUMER_COALESCE_MAX_BYTES;
    private Duration slowConsumerSnapshotTimeout = DEFAULT_SLOW_CONSUMER_SNAPSHOT_TIMEOUT;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private int maxSubscriptionsPerConnection = DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private Path staticDir;
    private Path staticClientDir;
    private io.tablecast.server.net.TlsConfig tls;
    private Authenticator authenticator;
    private String metricsToken;

    private Builder() {}

    /** Require {@code Authorization: Bearer <token>} on {@code GET /metrics}; null = open (default). */
    public Builder metricsToken(String token) {
      this.metricsToken = token;
      return this;
    }

    /** Authenticates and authorizes clients; null (the default) = open server. */
    public Builder authenticator(Authenticator authenticator) {
      this.authenticator = authenticator;
      return this;
    }

    /** Serve TLS on the listening port (see docs/TLS.md); null = plaintext only (default). */
    public Builder tls(io.tablecast.server.net.TlsConfig tls) {
      this.tls = tls;
      return this;
    }

    /** Serve the files under this directory over HTTP GET at {@code /}; null = none. */
    public Builder staticDir(Path dir) {
      this.staticDir = dir;
      return this;
    }

    /** Serve the files under this directory over HTTP GET at {@code /client/}; null = none. */
    public Builder staticClientDir(Path dir) {
      this.staticClientDir = dir;
      return this;
    }

    public Builder serverName(String serverName) {
      this.serverName = serverName;
      return this;
    }

    public Builder listen(String host, int port) {
      this.listenHost = host;
      this.listenPort = port;
      return this;
    }

    public Builder listenHost(String host) {
      this.listenHost = host;
      return this;
    }

    public Builder listenPort(int port) {
      this.listenPort = port;
      return this;
    }

    public Builder source(SourceConfig source) {
      this.source = source;
      return this;
    }

    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = heartbeat;
      return this;
    }

    public Builder handshakeTimeout(Duration handshakeTimeout) {
      this.handshakeTimeout = handshakeTimeout;
      return this;
    }

    public Builder maxFrameBytes(int maxFrameBytes) {
      this.maxFrameBytes = maxFrameBytes;
      return this;
    }

    public Builder resumeBuffer(int batches, long approxBytes) {
      this.resumeBufferBatches = batches;
      this.resumeBufferBytes = approxBytes;
      return this;
    }

    public Builder writeBufferWaterMarks(int low, int high) {
      this.writeBufferLowWaterMark = low;
      this.writeBufferHighWaterMark = high;
      return this;
    }

    public Builder slowConsumerMaxPendingBytes(long bytes) {
      this.slowConsumerMaxPendingBytes = bytes;
      return this;
    }

    /** {@code slow_consumer.coalesce_max_keys}; 0 disables coalescing. */
    public Builder slowConsumerCoalesceMaxKeys(int keys) {
      this.slowConsumerCoalesceMaxKeys = keys;
      return this;
    }

    /** {@code slow_consumer.coalesce_max_bytes}: approximate bytes of coalesced changes per session. */
    public Builder slowConsumerCoalesceMaxBytes(long bytes) {
      this.slowConsumerCoalesceMaxBytes = bytes;
      return this;
    }

    /** {@code slow_consumer.snapshot_timeout}: a snapshot or resume replay must be read within it. */
    public Builder slowConsumerSnapshotTimeout(Duration timeout) {
      this.slowConsumerSnapshotTimeout = timeout;
      return this;
    }

    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
      return this;
    }

    public Builder maxSubscriptionsPerConnection(int tables) {
      this.maxSubscriptionsPerConnection = tables;
      return this;
    }

    public Builder maxConnections(int connections) {
      this.maxConnections = connections;
      return this;
    }

    /**
     * Validates and builds.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public ServerConfig build() {
      Objects.requireNonNull(source, "source must be set (jdbc_url and cached_tables)");
      ServerConfig config = new ServerConfig(this);
      ServerConfigChecks.check(config);
      return config;
    }
  }
}
