package io.tablecast.server.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The {@code nats:} section: the NATS JetStream stream that {@code tablecast capture} publishes the
 * committed batches of one database to, and that {@code tablecast serve} builds its images from
 * instead of reading the database (docs/SCALE-OUT.md).
 *
 * @param urls the NATS servers, {@code nats://host:port} (one is enough; the client fails over
 *     between them)
 * @param stream the JetStream stream; null = {@code TC_<database>} of the source's JDBC URL
 * @param user user name for user/password authentication; null = none
 * @param password that user's password
 * @param token token authentication; null = none
 * @param checkpointInterval how often a server writes a checkpoint of its images to the stream's
 *     checkpoint bucket (and the stream is trimmed to the previous one); null = {@link
 *     #DEFAULT_CHECKPOINT_INTERVAL}, zero = never (the stream then keeps every batch)
 * @param captureTakeover how long a {@code capture} leader's lease lasts without being renewed: a
 *     standby capture takes over at most this long (plus its start) after the leader stopped
 *     renewing; null = {@link #DEFAULT_CAPTURE_TAKEOVER}
 * @param nkeySeedFile a file holding the NKey seed ({@code SU...}) to authenticate with; null =
 *     none
 * @param tls TLS to NATS: the CAs to trust and, for mutual TLS, this client's certificate; null =
 *     the JVM's trust store when a URL is {@code tls://}, plaintext otherwise
 * @param credentialsFile a NATS credentials file ({@code .creds}: a user JWT and its NKey seed, as
 *     {@code nsc} writes it) for decentralized (operator mode) authentication; null = none
 * @param replicas the replicas of the stream and of its buckets when capture creates them (1 to 5;
 *     0 = 1): 3 on a 3-node JetStream cluster survives the loss of one node
 * @param storage {@code file} or {@code memory}: where NATS keeps the stream and its buckets when
 *     capture creates them; null = {@code file}
 */
public record NatsSettings(
    List<String> urls,
    String stream,
    String user,
    Secret password,
    Secret token,
    Duration checkpointInterval,
    Duration captureTakeover,
    Path nkeySeedFile,
    NatsTls tls,
    Path credentialsFile,
    int replicas,
    String storage) {

  /** Default of {@link #checkpointInterval()}: 15 minutes. */
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofMinutes(15);

  /** Default of {@link #captureTakeover()}: 10 seconds. */
  public static final Duration DEFAULT_CAPTURE_TAKEOVER = Duration.ofSeconds(10);

  /** Shortest {@link #captureTakeover()}: a lease renewed three times a second at most. */
  public static final Duration MIN_CAPTURE_TAKEOVER = Duration.ofSeconds(1);

  /** The prefix of the default stream name, followed by the database's name. */
  public static final String STREAM_PREFIX = "TC_";

  /** Checks every value, naming its key. */
  public NatsSettings {
    urls = List.copyOf(Objects.requireNonNullElse(urls, List.of()));
    if (urls.isEmpty()) {
      throw new IllegalArgumentException(
          "nats.urls must name at least one NATS server (nats://host:4222)");
    }
    for (String url : urls) {
      if (!url.startsWith("nats://") && !url.startsWith("tls://")) {
        throw new IllegalArgumentException(
            "nats.urls entries must be nats://host:port or tls://host:port, was '" + url + "'");
      }
    }
    if (stream != null && !stream.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException(
          "nats.stream must be letters, digits, '_' and '-' only (a JetStream stream name), was '"
              + stream
              + "'");
    }
    if ((user == null) != (password == null)) {
      throw new IllegalArgumentException("nats.user and nats.password must be set together");
    }
    if (user != null && token != null) {
      throw new IllegalArgumentException(
          "nats.token and nats.user/password are two ways to authenticate; set one");
    }
    checkpointInterval =
        Objects.requireNonNullElse(checkpointInterval, DEFAULT_CHECKPOINT_INTERVAL);
    if (checkpointInterval.isNegative()) {
      throw new IllegalArgumentException(
          "nats.checkpoint_interval must be zero (no checkpoints) or positive, was "
              + checkpointInterval);
    }
    captureTakeover = Objects.requireNonNullElse(captureTakeover, DEFAULT_CAPTURE_TAKEOVER);
    if (captureTakeover.compareTo(MIN_CAPTURE_TAKEOVER) < 0) {
      throw new IllegalArgumentException(
          "nats.capture_takeover must be at least 1s, was " + captureTakeover);
    }
    if (nkeySeedFile != null && !Files.isReadable(nkeySeedFile)) {
      throw new IllegalArgumentException(
          "nats.nkey_seed_file must be a readable file, was '" + nkeySeedFile + "'");
    }
    if (nkeySeedFile != null && (user != null || token != null)) {
      throw new IllegalArgumentException(
          "nats.nkey_seed_file and nats.user/password or nats.token are ways to authenticate; set"
              + " one");
    }
    if (credentialsFile != null && !Files.isReadable(credentialsFile)) {
      throw new IllegalArgumentException(
          "nats.credentials_file must be a readable file, was '" + credentialsFile + "'");
    }
    if (credentialsFile != null && (user != null || token != null || nkeySeedFile != null)) {
      throw new IllegalArgumentException(
          "nats.credentials_file and nats.user/password, nats.token or nats.nkey_seed_file are ways"
              + " to authenticate; set one");
    }
    replicas = replicas == 0 ? 1 : replicas;
    if (replicas < 1 || replicas > 5) {
      throw new IllegalArgumentException("nats.replicas must be 1 to 5, was " + replicas);
    }
    storage = Objects.requireNonNullElse(storage, "file");
    if (!storage.equals("file") && !storage.equals("memory")) {
      throw new IllegalArgumentException(
          "nats.storage must be file or memory, was '" + storage + "'");
    }
  }

  /** Without a checkpoint interval: the default. */
  public NatsSettings(
      List<String> urls, String stream, String user, Secret password, Secret token) {
    this(urls, stream, user, password, token, null, null, null, null, null, 0, null);
  }

  /** These settings with another checkpoint interval. */
  public NatsSettings withCheckpointInterval(Duration interval) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        interval,
        captureTakeover,
        nkeySeedFile,
        tls,
        credentialsFile,
        replicas,
        storage);
  }

  /** These settings with NKey authentication by the seed in {@code seedFile}. */
  public NatsSettings withNkeySeedFile(Path seedFile) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        captureTakeover,
        seedFile,
        tls,
        credentialsFile,
        replicas,
        storage);
  }

  /** These settings with decentralized authentication by the credentials file {@code creds}. */
  public NatsSettings withCredentialsFile(Path creds) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        captureTakeover,
        nkeySeedFile,
        tls,
        creds,
        replicas,
        storage);
  }

  /** These settings with TLS to NATS. */
  public NatsSettings withTls(NatsTls natsTls) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        captureTakeover,
        nkeySeedFile,
        natsTls,
        credentialsFile,
        replicas,
        storage);
  }

  /** These settings with another placement of the stream and its buckets. */
  public NatsSettings withPlacement(int streamReplicas, String streamStorage) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        captureTakeover,
        nkeySeedFile,
        tls,
        credentialsFile,
        streamReplicas,
        streamStorage);
  }

  /** These settings with other NATS servers. */
  public NatsSettings withUrls(List<String> servers) {
    return new NatsSettings(
        servers,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        captureTakeover,
        nkeySeedFile,
        tls,
        credentialsFile,
        replicas,
        storage);
  }

  /** These settings with another capture takeover time. */
  public NatsSettings withCaptureTakeover(Duration takeover) {
    return new NatsSettings(
        urls,
        stream,
        user,
        password,
        token,
        checkpointInterval,
        takeover,
        nkeySeedFile,
        tls,
        credentialsFile,
        replicas,
        storage);
  }

  /**
   * The stream's name: {@link #stream()}, else {@value #STREAM_PREFIX} and the database of {@code
   * jdbcUrl} (the last path segment, characters a stream name cannot hold made '_').
   *
   * @throws IllegalArgumentException when neither is known
   */
  public String streamName(String jdbcUrl) {
    if (stream != null) {
      return stream;
    }
    if (jdbcUrl == null) {
      throw new IllegalArgumentException(
          "nats.stream must be set when the configuration has no source to name it after");
    }
    String path = jdbcUrl.replaceFirst("\\?.*$", "");
    String db = path.substring(path.lastIndexOf('/') + 1);
    if (db.isEmpty()) {
      throw new IllegalArgumentException(
          "nats.stream must be set: the JDBC URL names no database to name the stream after");
    }
    return STREAM_PREFIX + db.replaceAll("[^A-Za-z0-9_-]", "_");
  }

  @Override
  public String toString() {
    return "NatsSettings[urls="
        + urls
        + ", stream="
        + stream
        + ", user="
        + user
        + ", password="
        + password
        + ", token="
        + token
        + ", checkpointInterval="
        + checkpointInterval
        + ", captureTakeover="
        + captureTakeover
        + ", nkeySeedFile="
        + nkeySeedFile
        + ", tls="
        + tls
        + ", credentialsFile="
        + credentialsFile
        + ", replicas="
        + replicas
        + ", storage="
        + storage
        + "]";
  }
}
