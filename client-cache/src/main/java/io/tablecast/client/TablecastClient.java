package io.tablecast.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.tablecast.client.internal.HeapRoom;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

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
 * <p>{@link Builder#build()} returns at once and connects in the background; it reconnects to any
 * configured server with capped exponential backoff and full jitter, resuming the stream from the
 * last applied position. {@link ConnectionListener}s hear how the connection goes, {@link
 * ErrorListener}s what the server refused and which rows could not be mapped. Thread-safe. See
 * {@code docs/CLIENT.md}.
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

  /**
   * Default {@link Builder#heapReservePercent(int)}: a fifth of the heap is kept for the
   * application.
   */
  public static final int DEFAULT_HEAP_RESERVE_PERCENT = 20;

  /** Default interval of {@link Builder#warmRestart(Path)}: saved every 5 minutes. */
  public static final Duration DEFAULT_WARM_RESTART_INTERVAL = Duration.ofMinutes(5);

  /** Default {@link Builder#clientName(String)}. */
  public static final String DEFAULT_CLIENT_NAME = "tablecast-java";

  private final ClientParts parts;

  private TablecastClient(ClientSettings settings) {
    this.parts = new ClientParts(settings);
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
    return parts.mirrors.mirror(table, rowType);
  }

  /**
   * Like {@link #mirror(String, Class)}, with the secondary indexes it lacks added (see {@link
   * IndexDefinition}).
   */
  public <V> TableMirror<V> mirror(
      String table, Class<V> rowType, List<IndexDefinition<V>> indexes) {
    return parts.mirrors.mirror(table, rowType).declare(indexes);
  }

  /** Like {@link #mirror(String)}, with the secondary indexes it lacks added. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public TableMirror<Map<String, Object>> mirror(
      String table, List<IndexDefinition<Map<String, Object>>> indexes) {
    return ((Mirror) parts.mirrors.mirror(table, Map.class)).declare(indexes);
  }

  /**
   * The mirror of {@code table} with generic rows: unmodifiable maps of column name to the value
   * Jackson would read from JSON (String, Integer/Long/BigInteger, Double, Boolean, null, nested
   * maps and lists). Decimals are strings.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public TableMirror<Map<String, Object>> mirror(String table) {
    return (TableMirror) parts.mirrors.mirror(table, Map.class);
  }

  /**
   * The mirror of {@code table} with rows of {@code rowType} that holds only the rows and columns
   * {@code shape} chooses, evaluated by the server (see {@link MirrorShape}). All mirrors of a
   * table in one client hold the same shape.
   *
   * @throws IllegalArgumentException when mirrors of the table hold another shape
   * @throws TablecastException if the client is closed
   */
  public <V> TableMirror<V> mirror(String table, Class<V> rowType, MirrorShape shape) {
    return parts.mirrors.mirror(table, rowType, shape);
  }

  /** Like {@link #mirror(String, Class, MirrorShape)}, with generic rows. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public TableMirror<Map<String, Object>> mirror(String table, MirrorShape shape) {
    return (TableMirror) parts.mirrors.mirror(table, Map.class, shape);
  }

  /**
   * The near cache of {@code table} with rows of {@code rowType}: the hot rows of a table that
   * should not be held whole, loaded by key from the server and kept current (see {@link
   * NearCache}). One per table and row type.
   *
   * @throws IllegalArgumentException when it exists already with other options
   * @throws TablecastException if the client is closed
   */
  public <V> NearCache<V> nearCache(String table, Class<V> rowType, NearCacheOptions options) {
    return parts.mirrors.nearCache(table, rowType, options);
  }

  /** Like {@link #nearCache(String, Class, NearCacheOptions)}, with generic rows. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public NearCache<Map<String, Object>> nearCache(String table, NearCacheOptions options) {
    return (NearCache) parts.mirrors.nearCache(table, Map.class, options);
  }

  /**
   * Registers a listener told how the connection goes from now on (to hear the first connection
   * too, register it with {@link Builder#connectionListener}).
   */
  public Subscription addConnectionListener(ConnectionListener listener) {
    return parts.listeners.add(listener);
  }

  /**
   * Registers a listener told of refusals by the server and of rows that could not be mapped, from
   * now on (to hear those of the first connection too, register it with {@link
   * Builder#errorListener}).
   */
  public Subscription addErrorListener(ErrorListener listener) {
    return parts.listeners.add(listener);
  }

  /**
   * Read-your-writes: returns once every mirror of this client holds every change committed in the
   * database before the call (write through JDBC, commit, {@code sync}, then read the mirror). The
   * server answers after its next read of the outbox, which it starts at once; across a reconnect
   * the request is asked again. See {@code docs/CLIENT.md}.
   *
   * @throws TablecastException when no answer came within {@code timeout} (the message says whether
   *     the client was connected), or the server cannot answer (it serves from a NATS stream, or is
   *     of a version without sync)
   */
  public void sync(Duration timeout) throws InterruptedException {
    SyncCalls.await(parts.session, timeout);
  }

  /** As {@link #sync(Duration)}, without waiting: the future fails as that method throws. */
  public CompletableFuture<Void> syncAsync() {
    return SyncCalls.async(parts.session);
  }

  /** What this client did, for {@link TablecastClientMetrics}. */
  ClientActivity activity() {
    return parts.listeners.activity();
  }

  /** Closes the connection and stops all threads; mirrors become not ready. Idempotent. */
  @Override
  public void close() {
    parts.close();
  }

  /** Configures a {@link TablecastClient}; not thread-safe. */
  public static final class Builder {
    private final ClientSettings settings = new ClientSettings();

    private Builder() {}

    /**
     * Connect over TLS, trusting the JVM's default trust store (certificates from public CAs, or
     * whatever {@code javax.net.ssl.trustStore} names). The server's certificate must name the host
     * given in {@link #servers} (hostname verification; SNI is sent for host names). Default:
     * plaintext. See {@code docs/TLS.md}.
     */
    public Builder tls() {
      return tls(null, null, null);
    }

    /**
     * Warm restart: every mirror is saved to a file of its own in {@code directory} (created if
     * missing) when the client closes and every {@link #DEFAULT_WARM_RESTART_INTERVAL}, and a
     * mirror created later, by this or a restarted client, starts from its file: ready at once with
     * the saved rows ({@link TableMirror#staleReason} says so until a server brings it up to date),
     * then resumed from the saved position, or compared with a fresh snapshot when the server
     * cannot resume it (its {@link ChangeListener}s hear the differences). A file that is corrupt
     * or not the mirror's is reported ({@link ErrorListener#mirrorFileFailed}) and never loaded.
     * Typed rows must not be changed by the application (they never should). See {@code
     * docs/CLIENT.md}.
     */
    public Builder warmRestart(Path directory) {
      return warmRestart(directory, DEFAULT_WARM_RESTART_INTERVAL);
    }

    /** As {@link #warmRestart(Path)}, saving every {@code saveEvery} (at least 1 second). */
    public Builder warmRestart(Path directory, Duration saveEvery) {
      if (directory == null) {
        throw new IllegalArgumentException("warmRestart directory must not be null");
      }
      if (saveEvery == null || saveEvery.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "warmRestart interval must be at least 1 second, was " + saveEvery);
      }
      settings.warmRestartDirectory = directory;
      settings.warmRestartInterval = saveEvery;
      return this;
    }

    /**
     * Connect over TLS, trusting only the PEM certificate(s) in {@code trustedCertPem} (a CA or the
     * server's own).
     */
    public Builder tls(Path trustedCertPem) {
      return tls(trustedCertPem, null, null);
    }

    /**
     * Connect over TLS trusting {@code trustedCertPem} (null = the JVM trust store) and present a
     * client certificate: its PEM chain and its unencrypted PKCS#8 PEM key.
     */
    public Builder tls(Path trustedCertPem, Path clientCertChainPem, Path clientKeyPem) {
      settings.tls = true;
      settings.tlsTrusted = trustedCertPem;
      settings.tlsClientCertChain = clientCertChainPem;
      settings.tlsClientKey = clientKeyPem;
      return this;
    }

    /**
     * With TLS: whether the server certificate must name the host connected to; default true. Turn
     * it off only for tests or when connecting by an address the certificate cannot name.
     */
    public Builder tlsVerifyHostname(boolean verify) {
      settings.tlsVerifyHostname = verify;
      return this;
    }

    /** Adds servers as {@code host:port}; reconnects go round-robin over all of them. */
    public Builder servers(String... hostPorts) {
      Objects.requireNonNull(hostPorts, "servers");
      settings.servers.addAll(List.of(hostPorts));
      return this;
    }

    /** A name for the server's logs and metrics; default {@link #DEFAULT_CLIENT_NAME}. */
    public Builder clientName(String clientName) {
      settings.clientName = clientName;
      return this;
    }

    /** User and password for password authentication. */
    public Builder credentials(String user, String password) {
      settings.user = user;
      settings.password = password;
      return this;
    }

    /** A signed token (e.g. JWT), as an alternative to {@link #credentials}. */
    public Builder token(String token) {
      settings.token = token == null ? null : () -> token;
      return this;
    }

    /**
     * Where the signed token comes from (e.g. JWT), as an alternative to {@link #credentials}:
     * asked before each connection, so that a reconnect after the last token expired sends a fresh
     * one. It is called on the client's event loop and must not block: return a token held (and
     * refreshed) elsewhere. When it throws or gives null, the hello carries no token (the server
     * refuses it, and mirrors that followed their table say so) and the failure is logged.
     */
    public Builder token(Supplier<String> tokens) {
      settings.token = tokens;
      return this;
    }

    /** TCP connect timeout; default {@link #DEFAULT_CONNECT_TIMEOUT}. */
    public Builder connectTimeout(Duration connectTimeout) {
      settings.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Reconnect delays: attempt n waits a uniform random time in [0, min(max, min * 2^n)]; defaults
     * {@link #DEFAULT_BACKOFF_MIN} and {@link #DEFAULT_BACKOFF_MAX}.
     */
    public Builder reconnectBackoff(Duration min, Duration max) {
      settings.backoffMin = min;
      settings.backoffMax = max;
      return this;
    }

    /** Largest frame accepted from the server; default {@link #DEFAULT_MAX_FRAME_BYTES}. */
    public Builder maxFrameBytes(int maxFrameBytes) {
      settings.maxFrameBytes = maxFrameBytes;
      return this;
    }

    /**
     * The share of the heap's maximum ({@code -Xmx}) a mirror's snapshot may not take, kept for the
     * application: a snapshot that would reach into it is dropped and its mirror fails with a
     * message naming the table, the memory and {@code -Xmx} ({@link ErrorListener#tableTooLarge});
     * 0..90, default {@link #DEFAULT_HEAP_RESERVE_PERCENT}.
     */
    public Builder heapReservePercent(int percent) {
      settings.heapReservePercent = percent;
      return this;
    }

    /** The heap snapshots are sized against (tests give a small one of their own). */
    Builder heap(HeapRoom heap) {
      settings.heap = heap;
      return this;
    }

    /**
     * The mapper for typed rows. Default: {@link #defaultObjectMapper()}: unknown columns are
     * ignored, {@code java.time} types are supported (DATE → {@code LocalDate}, TIME → {@code
     * LocalTime}, TIMESTAMP → {@code LocalDateTime}, TIMESTAMP_TZ → {@code Instant} or {@code
     * OffsetDateTime}), DECIMAL strings map to {@code BigDecimal}, BINARY base64 to {@code byte[]},
     * JSON columns to {@code JsonNode}, maps or records.
     */
    public Builder objectMapper(ObjectMapper objectMapper) {
      settings.objectMapper = objectMapper;
      return this;
    }

    /**
     * Adds a listener told how the connection goes, from the first connection on (see {@link
     * TablecastClient#addConnectionListener} to add one later).
     */
    public Builder connectionListener(ConnectionListener listener) {
      settings.connectionListeners.add(Objects.requireNonNull(listener, "connectionListener"));
      return this;
    }

    /**
     * Adds a listener told of refusals by the server and of rows that could not be mapped, from the
     * first connection on (see {@link TablecastClient#addErrorListener} to add one later).
     */
    public Builder errorListener(ErrorListener listener) {
      settings.errorListeners.add(Objects.requireNonNull(listener, "errorListener"));
      return this;
    }

    /**
     * Validates the settings and starts connecting in the background; returns at once.
     *
     * @throws IllegalArgumentException naming the first bad value
     */
    public TablecastClient build() {
      TablecastClient client = new TablecastClient(settings);
      client.parts.start();
      return client;
    }

    /** The mapper used for typed rows unless {@link #objectMapper} sets another. */
    public static ObjectMapper defaultObjectMapper() {
      return new ObjectMapper()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
          .registerModule(new JavaTimeModule());
    }
  }
}
