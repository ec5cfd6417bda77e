package io.tablecast.server.stream;

import io.nats.client.AuthHandler;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.tablecast.server.config.NatsSettings;
import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Connections to NATS and the stream of one database: its name, its one subject ({@code
 * tablecast.<stream>}), created by capture when missing (file storage, no limits: this slice has no
 * checkpoints, so a new server replays the stream from its first message).
 */
final class NatsStreams {

  /** Error code of a JetStream request for a stream that does not exist. */
  static final int STREAM_NOT_FOUND = 10059;

  /** A JWT: header, claims and signature, base64url each. */
  private static final Pattern JWT =
      Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");

  /** How long one connection attempt may take. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private NatsStreams() {}

  /** The subject the batches of {@code stream} are published on. */
  static String subject(String stream) {
    return "tablecast." + stream;
  }

  /**
   * Connects to the configured servers, reconnecting for ever after a loss (a restarted NATS is
   * waited for, never given up on).
   *
   * @throws IllegalStateException naming the servers when none can be reached at all
   */
  static Connection connect(NatsSettings nats, String connectionName) throws InterruptedException {
    Options.Builder options =
        new Options.Builder()
            .servers(nats.urls().toArray(String[]::new))
            .connectionName(connectionName)
            .errorListener(new NatsClientEvents())
            .connectionTimeout(CONNECT_TIMEOUT)
            .reconnectWait(Duration.ofMillis(250))
            .maxReconnects(-1);
    if (nats.user() != null) {
      options.userInfo(nats.user().toCharArray(), nats.password().value().toCharArray());
    }
    if (nats.token() != null) {
      options.token(nats.token().value().toCharArray());
    }
    if (nats.nkeySeedFile() != null) {
      options.authHandler(new SeedFileAuthHandler(nats.nkeySeedFile()));
    }
    if (nats.credentialsFile() != null) {
      options.authHandler(credentials(nats.credentialsFile()));
    }
    if (nats.tls() != null) {
      options.sslContext(NatsTlsContext.of(nats.tls()));
    }
    try {
      return Nats.connect(options.build());
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot connect to NATS at " + nats.urls() + ": " + e.getMessage(), e);
    }
  }

  /**
   * jnats' handler of a {@code .creds} file, tried once here: jnats reads the file at each connect
   * and would otherwise send a file that holds no JWT as one, or fail to sign in the handshake.
   */
  private static AuthHandler credentials(Path credsFile) {
    AuthHandler handler = Nats.credentials(credsFile.toString());
    try {
      char[] jwt = handler.getJWT();
      if (jwt == null || !JWT.matcher(CharBuffer.wrap(jwt)).matches()) {
        throw new IllegalArgumentException("no -----BEGIN NATS USER JWT----- block with a JWT");
      }
      handler.sign(new byte[] {0}); // reads the seed: refused here when missing or not one
      return handler;
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IllegalArgumentException(
          "nats.credentials_file: "
              + credsFile
              + " is not a NATS credentials file (a user JWT and its NKey seed, as nsc writes"
              + " them): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The stream's information, or null when it does not exist.
   *
   * @throws IllegalStateException naming the servers and the stream when NATS refuses (JetStream
   *     not enabled, no permission)
   */
  static StreamInfo info(Connection c, String stream) throws IOException {
    try {
      return management(c, stream).getStreamInfo(stream);
    } catch (IOException e) {
      throw new IOException(
          "NATS at "
              + c.getConnectedUrl()
              + " did not answer a JetStream request on stream "
              + stream
              + " (is JetStream enabled, -js, and ready?): "
              + e.getMessage(),
          e);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
        return null;
      }
      throw refused(c, stream, e);
    }
  }

  /**
   * The stream, created when it does not exist with the configured {@code nats.replicas} and {@code
   * nats.storage}.
   *
   * @throws IllegalStateException naming the stream, both placements and the way out when it exists
   *     with another
   */
  static StreamInfo createIfMissing(Connection c, String stream, NatsSettings settings)
      throws IOException {
    StorageType storage =
        settings.storage().equals("memory") ? StorageType.Memory : StorageType.File;
    StreamInfo info = info(c, stream);
    if (info != null) {
      StreamConfiguration has = info.getConfiguration();
      if (has.getReplicas() != settings.replicas() || has.getStorageType() != storage) {
        throw new IllegalStateException(
            "NATS stream "
                + stream
                + " exists with replicas "
                + has.getReplicas()
                + " and storage "
                + has.getStorageType().toString().toLowerCase(Locale.ROOT)
                + "; the configuration asks for replicas "
                + settings.replicas()
                + " and storage "
                + settings.storage()
                + ": set nats.replicas and nats.storage to the stream's, or change the stream "
                + "(nats stream edit; storage needs a new stream)");
      }
      return info;
    }
    try {
      return management(c, stream)
          .addStream(
              StreamConfiguration.builder()
                  .name(stream)
                  .subjects(subject(stream))
                  .storageType(storage)
                  .replicas(settings.replicas())
                  .build());
    } catch (JetStreamApiException e) {
      throw refused(c, stream, e);
    }
  }

  /** The replicas of {@code stream}, which its buckets take too; 1 when it does not exist. */
  static int replicas(Connection c, String stream) throws IOException {
    StreamInfo info = info(c, stream);
    return info == null ? 1 : info.getConfiguration().getReplicas();
  }

  private static JetStreamManagement management(Connection c, String stream) throws IOException {
    try {
      return c.jetStreamManagement();
    } catch (IOException e) {
      throw new IOException(
          "JetStream is not available on " + c.getConnectedUrl() + " for stream " + stream, e);
    }
  }

  /**
   * True when {@code e}, thrown while connecting to NATS or setting the stream up, may pass by
   * itself: NATS not reachable yet, a request that timed out, JetStream answering 503 (not ready,
   * temporarily unavailable while a cluster elects its meta leader). False for what only an
   * operator can fix: authorization refused, a setting that names a bad file, a stream placed
   * otherwise.
   */
  static boolean retryable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AuthenticationException || t instanceof IllegalArgumentException) {
        return false;
      }
      if (t instanceof JetStreamApiException api) {
        return api.getErrorCode() == 503;
      }
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  static IllegalStateException refused(Connection c, String stream, JetStreamApiException e) {
    return new IllegalStateException(
        "NATS at "
            + c.getConnectedUrl()
            + " refused a request on stream "
            + stream
            + " (is JetStream enabled, -js?): "
            + e.getMessage(),
        e);
  }
}
