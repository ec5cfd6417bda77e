package io.tablecast.server.net;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * TLS settings of the server port ({@code tls:} in the YAML, see {@code docs/TLS.md}): a PEM
 * certificate chain and PEM (PKCS#8) private key, optionally a PEM bundle of CAs whose client
 * certificates are accepted, the client-certificate policy, and whether plaintext connections are
 * still served on the same port.
 *
 * @param certChain PEM certificate chain, leaf first
 * @param privateKey PEM private key of the leaf, unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY})
 * @param clientCa PEM CA certificates that sign accepted client certificates; null = none
 * @param clientAuth whether clients present a certificate
 * @param allowPlaintext true: connections that do not start with a TLS handshake are served in
 *     plaintext as without TLS; false (default): they are refused with an explanation
 * @param reloadInterval every this long the files are read again, and a renewed certificate (or
 *     client CA) is served to new connections; null = {@link #DEFAULT_RELOAD_INTERVAL}, zero = read
 *     at start only
 */
public record TlsConfig(
    Path certChain,
    Path privateKey,
    Path clientCa,
    ClientAuth clientAuth,
    boolean allowPlaintext,
    Duration reloadInterval) {

  /** Default {@link #reloadInterval()}: about as often as Kubernetes refreshes a mounted secret. */
  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofMinutes(1);

  /** Client-certificate policy. */
  public enum ClientAuth {
    /** No certificate is asked for. */
    NONE,
    /**
     * A certificate is asked for; a client without one, or with one {@code client_ca} did not sign,
     * is served without a verified subject ({@link TlsPeer#SUBJECT} absent).
     */
    OPTIONAL,
    /** A client without a certificate signed by {@code client_ca} fails the handshake. */
    REQUIRE;

    /** Parses {@code none}, {@code optional} or {@code require} (any case). */
    public static ClientAuth parse(String s, String key) {
      try {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            key + " must be none, optional or require, was '" + s + "'", e);
      }
    }
  }

  /** The default {@link #reloadInterval()}. */
  public TlsConfig(
      Path certChain,
      Path privateKey,
      Path clientCa,
      ClientAuth clientAuth,
      boolean allowPlaintext) {
    this(certChain, privateKey, clientCa, clientAuth, allowPlaintext, null);
  }

  /** Server certificate only: no client certificates, plaintext refused. */
  public static TlsConfig of(Path certChain, Path privateKey) {
    return new TlsConfig(certChain, privateKey, null, ClientAuth.NONE, false);
  }

  /**
   * What {@link #check()} found.
   *
   * @param usable the server would start with the files
   * @param expiring the certificate ends within seven days, or has ended
   * @param message the certificate served (subject, end of validity), or why it cannot be
   */
  public record FilesCheck(boolean usable, boolean expiring, String message) {}

  /**
   * Reads the files as the server's start does, checking that the key is the certificate's, for
   * {@code tablecast check}: the certificate it would serve, or why the start would fail.
   */
  public FilesCheck check() {
    return ServerCertificates.check(this, Clock.systemUTC());
  }

  /** This configuration with the files read again every {@code interval} (zero: never). */
  public TlsConfig withReloadInterval(Duration interval) {
    return new TlsConfig(certChain, privateKey, clientCa, clientAuth, allowPlaintext, interval);
  }

  /**
   * Validates: the files exist, and {@code client_auth} optional/require has a {@code client_ca}. A
   * null {@code clientAuth} means {@code require} when a {@code client_ca} is given, else {@code
   * none}.
   */
  public TlsConfig {
    file("tls.cert_chain", certChain);
    file("tls.private_key", privateKey);
    if (clientCa != null) {
      file("tls.client_ca", clientCa);
    }
    if (reloadInterval == null) {
      reloadInterval = DEFAULT_RELOAD_INTERVAL;
    }
    if (reloadInterval.isNegative()) {
      throw new IllegalArgumentException(
          "tls.reload_interval must be 0s (read at start only) or more, was " + reloadInterval);
    }
    if (clientAuth == null) {
      clientAuth = clientCa == null ? ClientAuth.NONE : ClientAuth.REQUIRE;
    }
    if (clientAuth != ClientAuth.NONE && clientCa == null) {
      throw new IllegalArgumentException(
          "tls.client_auth "
              + clientAuth.name().toLowerCase(Locale.ROOT)
              + " needs tls.client_ca (the PEM file of the CA that signs client certificates)");
    }
  }

  private static void file(String key, Path p) {
    if (p == null) {
      throw new IllegalArgumentException(key + " must be set (a PEM file)");
    }
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new IllegalArgumentException(key + " must be a readable PEM file, was '" + p + "'");
    }
  }

  @Override
  public String toString() {
    return "TlsConfig[certChain="
        + certChain
        + ", clientCa="
        + clientCa
        + ", clientAuth="
        + clientAuth.name().toLowerCase(Locale.ROOT)
        + ", allowPlaintext="
        + allowPlaintext
        + ", reloadInterval="
        + reloadInterval
        + "]";
  }
}
