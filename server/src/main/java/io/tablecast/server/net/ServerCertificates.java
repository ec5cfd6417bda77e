package io.tablecast.server.net;

import io.netty.handler.ssl.SslContext;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;

/**
 * The server's TLS context, read from the {@code tls:} files at start and again whenever they
 * change ({@link #reloadIfChanged}, every {@code tls.reload_interval}): a certificate renewed in
 * place (cert-manager, a Let's Encrypt client, a Vault agent) is served to the connections made
 * from then on, without a restart, which would send every client back to a snapshot. Connections
 * made before keep the context they shook hands with.
 *
 * <p>New files are taken only whole: they must build a context and the private key must be the
 * certificate's (a signature made with the one verified with the other). Files caught half written
 * (the new certificate beside the old key) are refused with a WARN and the previous context kept
 * until the files change again. The certificate's expiry is logged at every load, and as a WARN
 * once it is less than {@link #EXPIRY_WARNING} away.
 */
final class ServerCertificates {
  private static final Logger LOG = RecentEvents.logger(ServerCertificates.class);

  /** A certificate closer than this to its end is warned about. */
  static final Duration EXPIRY_WARNING = Duration.ofDays(7);

  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  private final TlsConfig tls;
  private final Clock clock;
  private volatile SslContext current;
  private X509Certificate served;
  private byte[] servedFiles;
  private byte[] refusedFiles;
  private boolean expiryWarned;

  private ServerCertificates(TlsConfig tls, Clock clock) {
    this.tls = tls;
    this.clock = clock;
  }

  /**
   * Reads the files and builds the context.
   *
   * @throws IllegalArgumentException naming the files when they cannot be used
   */
  static ServerCertificates load(TlsConfig tls) {
    return load(tls, Clock.systemUTC(), true);
  }

  /**
   * As {@link #load(TlsConfig)}, saying nothing (the port that answers while the server starts: the
   * serving port logs the certificate and its expiry).
   */
  static ServerCertificates loadQuietly(TlsConfig tls) {
    return load(tls, Clock.systemUTC(), false);
  }

  static ServerCertificates load(TlsConfig tls, Clock clock) {
    return load(tls, clock, true);
  }

  private static ServerCertificates load(TlsConfig tls, Clock clock, boolean announce) {
    ServerCertificates certs = new ServerCertificates(tls, clock);
    byte[] files;
    try {
      files = certs.fingerprint();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "the tls files cannot be read (" + tls + "): " + e.getMessage(), e);
    }
    Loaded first = certs.build();
    certs.use(first, files);
    if (!announce) {
      return certs;
    }
    LOG.info(
        "TLS enabled: certificate chain {} ({}), client certificates {}{}, plaintext {}",
        tls.certChain(),
        describe(first.leaf()),
        tls.clientAuth().name().toLowerCase(java.util.Locale.ROOT),
        tls.clientCa() == null ? "" : " (CA " + tls.clientCa() + ")",
        tls.allowPlaintext() ? "also accepted" : "refused");
    certs.warnOfExpiry();
    return certs;
  }

  /** The context new connections shake hands with. */
  SslContext current() {
    return current;
  }

  /**
   * Reads the files again and, when they changed and can be used whole, serves them from now on;
   * when they cannot, keeps the previous context and says why once per change. Never throws.
   */
  synchronized void reloadIfChanged() {
    try {
      byte[] files = fingerprint();
      if (MessageDigest.isEqual(files, servedFiles) || MessageDigest.isEqual(files, refusedFiles)) {
        warnOfExpiry();
        return;
      }
      Loaded next;
      try {
        next = build();
      } catch (IllegalArgumentException e) {
        refusedFiles = files;
        LOG.warn(
            "The TLS files changed but cannot be used, still serving the previous certificate"
                + " ({}); they are read again when they change (a renewal caught half written"
                + " is taken once it is whole): {}",
            describe(served),
            e.getMessage());
        warnOfExpiry();
        return;
      }
      use(next, files);
      LOG.info(
          "TLS certificate reloaded from {}: {}; new connections are served with it",
          tls.certChain(),
          describe(next.leaf()));
      warnOfExpiry();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Cannot read the TLS files to look for a renewed certificate ({}), still serving {}",
          e.toString(),
          describe(served));
    }
  }

  /** The certificate served now. */
  synchronized X509Certificate served() {
    return served;
  }

  private record Loaded(SslContext context, X509Certificate leaf) {}

  private void use(Loaded loaded, byte[] files) {
    current = loaded.context();
    served = loaded.leaf();
    servedFiles = files;
    refusedFiles = null;
    expiryWarned = false;
  }

  private Loaded build() {
    X509Certificate leaf = leafOf(tls);
    SslContext context = TlsDetector.serverContext(tls);
    checkPair(tls, leaf);
    return new Loaded(context, leaf);
  }

  private void warnOfExpiry() {
    Instant end = served.getNotAfter().toInstant();
    Instant now = clock.instant();
    if (expiryWarned || now.isBefore(end.minus(EXPIRY_WARNING))) {
      return;
    }
    expiryWarned = true;
    LOG.warn(
        "The TLS certificate served ({}) {}: renew it in {}{}",
        describe(served),
        now.isBefore(end)
            ? "expires in " + Duration.between(now, end).toHours() + " hours"
            : "has expired: clients that check it refuse the connection",
        tls.certChain(),
        tls.reloadInterval().isZero()
            ? " and restart the server (tls.reload_interval is 0s)"
            : "; it is read again every " + tls.reloadInterval().toSeconds() + " s");
  }

  /** SHA-256 of the files' contents: a renewal is a change of bytes, whatever the times say. */
  private byte[] fingerprint() throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
    for (Path p : new Path[] {tls.certChain(), tls.privateKey(), tls.clientCa()}) {
      if (p != null) {
        sha.update(Files.readAllBytes(p));
        sha.update((byte) 0);
      }
    }
    return sha.digest();
  }

  private static X509Certificate leafOf(TlsConfig tls) {
    try (InputStream in = Files.newInputStream(tls.certChain())) {
      var certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IllegalArgumentException(
            "tls.cert_chain '" + tls.certChain() + "' holds no PEM certificate");
      }
      return (X509Certificate) certs.iterator().next();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "tls.cert_chain '" + tls.certChain() + "' cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Signs with {@code tls.private_key} and verifies with the leaf certificate: a key that is not
   * the certificate's builds a context whose every handshake fails.
   */
  private static void checkPair(TlsConfig tls, X509Certificate leaf) {
    String algorithm = signatureAlgorithm(leaf.getPublicKey().getAlgorithm());
    if (algorithm == null) {
      return; // a key type without a plain signature here (RSASSA-PSS): the handshake tells
    }
    try {
      byte[] probe = "tablecast certificate and key check".getBytes(StandardCharsets.US_ASCII);
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(privateKey(tls, leaf.getPublicKey().getAlgorithm()));
      sign.update(probe);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(leaf.getPublicKey());
      verify.update(probe);
      if (!verify.verify(signature)) {
        throw new IllegalArgumentException(mismatch(tls, leaf));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(mismatch(tls, leaf) + " (" + e.getMessage() + ")", e);
    }
  }

  private static String mismatch(TlsConfig tls, X509Certificate leaf) {
    return "tls.private_key '"
        + tls.privateKey()
        + "' is not the key of the certificate in tls.cert_chain '"
        + tls.certChain()
        + "' ("
        + describe(leaf)
        + "): give the pair that belongs together";
  }

  private static PrivateKey privateKey(TlsConfig tls, String keyAlgorithm)
      throws GeneralSecurityException {
    String pem;
    try {
      pem = Files.readString(tls.privateKey(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "tls.private_key '" + tls.privateKey() + "' cannot be read: " + e.getMessage(), e);
    }
    Matcher m = PKCS8.matcher(pem);
    if (!m.find()) {
      throw new IllegalArgumentException(
          "tls.private_key '" + tls.privateKey() + "' holds no PKCS#8 PEM key");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    return KeyFactory.getInstance(keyAlgorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  private static String signatureAlgorithm(String keyAlgorithm) {
    return switch (keyAlgorithm) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
      default -> null;
    };
  }

  /**
   * What {@code tablecast check} says of the {@code tls:} files: the certificate the server would
   * serve, or why it would not start.
   */
  static TlsConfig.FilesCheck check(TlsConfig tls, Clock clock) {
    X509Certificate leaf;
    try {
      leaf = loadQuietly(tls).served();
    } catch (IllegalArgumentException e) {
      return new TlsConfig.FilesCheck(false, false, e.getMessage());
    }
    Instant end = leaf.getNotAfter().toInstant();
    boolean soon = !clock.instant().isBefore(end.minus(EXPIRY_WARNING));
    return new TlsConfig.FilesCheck(
        true,
        soon,
        describe(leaf)
            + (soon ? (clock.instant().isBefore(end) ? ": expires soon" : ": has expired") : ""));
  }

  private static String describe(X509Certificate leaf) {
    return leaf.getSubjectX500Principal().getName()
        + ", valid until "
        + leaf.getNotAfter().toInstant();
  }
}
