package io.tablecast.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.internal.ClientConfig;
import io.tablecast.client.internal.ClientRuntime;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A connection to one or more Tablecast servers and the live table mirrors fed through it.
 *
 * <pre>{@code
 * try (TablecastClient client = TablecastClient.builder()
 *     .servers("cache1:7070", "cache2:7070")
 *     .clientName("billing")
 *     .build()) {
 *   TableMirror<Account> accounts = client.mirror("shop.accounts", Account.class);
 *   accounts.awaitReady(Duration.ofSeconds(10));
 *   Account a = accounts.get(42);
 * }
 * }</pre>
 *
 * <p>{@link Builder#build()} returns at once and connects in the background; it reconnects to
 * any configured server with capped exponential backoff and full jitter, resuming the stream
 * from the last applied position. Thread-safe. See {@code docs/CLIENT.md}.
 */
public final class TablecastClient implements AutoCloseable {

  /** Default {@link Builder#connectTimeout(Duration)}: 5 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /** Default lower bound of {@link Builder#reconnectBackoff(Duration, Duration)}: 100 ms. */
  public static final Duration DEFAULT_BACKOFF_MIN = Duration.ofMillis(100);
  /** Default upper bound of {@link Builder#reconnectBackoff(Duration, Duration)}: 5 s. */
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(5);
  /** Default {@link Builder#maxFrameBytes(int)}: 256 MiB, since a batch is a whole transaction. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 256 * 1024 * 1024;
  /** Default {@link Builder#clientName(String)}. */
  public static final String DEFAULT_CLIENT_NAME = "tablecast-java";

  private final ClientRuntime runtime;

  private TablecastClient(ClientRuntime runtime) {
    this.runtime = runtime;
  }

  /** A builder with the defaults above and no servers. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The mirror of {@code table} with rows mapped to {@code rowType} by Jackson. Asking twice for
   * the same table and type returns the same mirror. The table is subscribed at once when
   * connected, else on the next connection.
   *
   * @param table qualified name, {@code schema.table}
   * @throws TablecastException if the client is closed
   */
  public <V> TableMirror<V> mirror(String table, Class<V> rowType) {
    return runtime.mirror(table, rowType);
  }

  /**
   * The mirror of {@code table} with generic rows: unmodifiable maps of column name to the value
   * Jackson would read from JSON (String, Integer/Long/BigInteger, Double, Boolean, null, nested
   * maps and lists). Decimals are strings.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public TableMirror<Map<String, Object>> mirror(String table) {
    return (TableMirror) runtime.mirror(table, Map.class);
  }

  /** Closes the connection and stops all threads; mirrors become not ready. Idempotent. */
  @Override
  public void close() {
    runtime.close();
  }

  /** Configures a {@link TablecastClient}; not thread-safe. */
  public static final class Builder {
    private final List<String> servers = new ArrayList<>();
    private String clientName = DEFAULT_CLIENT_NAME;
    private String user;
    private String password;
    private String token;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration backoffMin = DEFAULT_BACKOFF_MIN;
    private Duration backoffMax = DEFAULT_BACKOFF_MAX;
    private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
    private ObjectMapper objectMapper;
    private boolean tls;
    private boolean tlsVerifyHostname = true;
    private java.nio.file.Path tlsTrusted;
    private java.nio.file.Path tlsClientCertChain;
    private java.nio.file.Path tlsClientKey;

    private Builder() {}

    /**
     * Connect over TLS, trusting the JVM's default trust store (certificates from public CAs,
     * or whatever {@code javax.net.ssl.trustStore} names). The server's certificate must name the
     * host given in {@link #servers} (hostname verification; SNI is sent for host names).
     * Default: plaintext. See {@code docs/TLS.md}.
     */
    public Builder tls() {
      return tls(null, null, null);
    }

    /** Connect over TLS, trusting only the PEM certificate(s) in {@code trustedCertPem} (a CA or the server's own). */
    public Builder tls(java.nio.file.Path trustedCertPem) {
      return tls(trustedCertPem, null, null);
    }

    /**
     * Connect over TLS trusting {@code trustedCertPem} (null = the JVM trust store) and present a
     * client certificate: its PEM chain and its unencrypted PKCS#8 PEM key.
     */
    public Builder tls(java.nio.file.Path trustedCertPem, java.nio.file.Path clientCertChainPem,
        java.nio.file.Path clientKeyPem) {
      this.tls = true;
      this.tlsTrusted = trustedCertPem;
      this.tlsClientCertChain = clientCertChainPem;
      this.tlsClientKey = clientKeyPem;
      return this;
    }

    /**
     * With TLS: whether the server certificate must name the host connected to; default true.
     * Turn it off only for tests or when connecting by an address the certificate cannot name.
     */
    public Builder tlsVerifyHostname(boolean verify) {
      this.tlsVerifyHostname = verify;
      return this;
    }

    /** Adds servers as {@code host:port}; reconnects go round-robin over all of them. */
    public Builder servers(String... hostPorts) {
      Objects.requireNonNull(hostPorts, "servers");
      servers.addAll(List.of(hostPorts));
      return this;
    }

    /** A name for the server's logs and metrics; default {@link #DEFAULT_CLIENT_NAME}. */
    public Builder clientName(String clientName) {
      this.clientName = clientName;
      return this;
    }

    /** User and password for password authentication. */
    public Builder credentials(String user, String password) {
      this.user = user;
      this.password = password;
      return this;
    }

    /** A signed token (e.g. JWT), as an alternative to {@link #credentials}. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** TCP connect timeout; default {@link #DEFAULT_CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Reconnect delays: attempt n waits a uniform random time in [0, min(max, min * 2^n)];
     * defaults {@link #DEFAULT_BACKOFF_MIN} and {@link #DEFAULT_BACKOFF_MAX}.
     */
    public Builder reconnectBackoff(Duration min, Duration max) {
      this.backoffMin = min;
      this.backoffMax = max;
      return this;
    }

    /** Largest frame accepted from the server; default {@link #DEFAULT_MAX_FRAME_BYTES}. */
    public Builder maxFrameBytes(int maxFrameBytes) {
      this.maxFrameBytes = maxFrameBytes;
      return this;
    }

    /**
     * The mapper for typed rows. Default: {@link #defaultObjectMapper()}: unknown columns are
     * ignored, {@code java.time} types are supported (DATE → {@code LocalDate}, TIME →
     * {@code LocalTime}, TIMESTAMP → {@code LocalDateTime}, TIMESTAMP_TZ → {@code Instant} or
     * {@code OffsetDateTime}), DECIMAL strings map to {@code BigDecimal}, BINARY base64 to
     * {@code byte[]}, JSON columns to {@code JsonNode}, maps or records.
     */
    public Builder objectMapper(ObjectMapper objectMapper) {
      this.objectMapper = objectMapper;
      return this;
    }

    /**
     * Validates the settings and starts connecting in the background; returns at once.
     *
     * @throws IllegalArgumentException naming the first bad value
     */
    public TablecastClient build() {
      if (servers.isEmpty()) {
        throw new IllegalArgumentException("servers must not be empty");
      }
      List<InetSocketAddress> addresses = new ArrayList<>(servers.size());
      for (String s : servers) {
        addresses.add(parse(s));
      }
      if (clientName == null || clientName.isBlank()) {
        throw new IllegalArgumentException("clientName must not be blank, was "
            + (clientName == null ? null : "\"" + clientName + "\""));
      }
      if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()
          || connectTimeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("connectTimeout must be positive (at most "
            + Integer.MAX_VALUE + " ms), was " + connectTimeout);
      }
      if (backoffMin == null || backoffMax == null || backoffMin.isNegative()) {
        throw new IllegalArgumentException("reconnectBackoff min and max must be non-negative, was "
            + backoffMin + " and " + backoffMax);
      }
      if (backoffMin.compareTo(backoffMax) > 0) {
        throw new IllegalArgumentException("reconnectBackoff min must be <= max, was " + backoffMin
            + " > " + backoffMax);
      }
      if (maxFrameBytes < 1024) {
        throw new IllegalArgumentException("maxFrameBytes must be at least 1024, was "
            + maxFrameBytes);
      }
      ObjectMapper mapper = objectMapper != null ? objectMapper : defaultObjectMapper();
      io.tablecast.client.internal.ClientTls clientTls = tls ? io.tablecast.client.internal.ClientTls.create(
          tlsTrusted, tlsClientCertChain, tlsClientKey, tlsVerifyHostname) : null;
      ClientRuntime runtime = new ClientRuntime(new ClientConfig(addresses, clientName, user,
          password, token, connectTimeout, backoffMin, backoffMax, maxFrameBytes, mapper, clientTls));
      runtime.start();
      return new TablecastClient(runtime);
    }

    /** The mapper used for typed rows unless {@link #objectMapper} sets another. */
    public static ObjectMapper defaultObjectMapper() {
      return new ObjectMapper()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .registerModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule());
    }

    private static InetSocketAddress parse(String hostPort) {
      if (hostPort == null) {
        throw new IllegalArgumentException("server must be host:port, was null");
      }
      int colon = hostPort.lastIndexOf(':');
      if (colon <= 0 || colon == hostPort.length() - 1) {
        throw new IllegalArgumentException("server must be host:port, was \"" + hostPort + "\"");
      }
      String host = hostPort.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(hostPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("server port must be 1..65535, was \"" + hostPort + "\"");
      }
      return InetSocketAddress.createUnresolved(host, port);
    }
  }
}
