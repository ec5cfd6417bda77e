package io.tablecast.server.net;

import java.nio.file.Files;
import java.nio.file.Path;
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
 */
public record TlsConfig(
    Path certChain, Path privateKey, Path clientCa, ClientAuth clientAuth, boolean allowPlaintext) {

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

  /** Server certificate only: no client certificates, plaintext refused. */
  public static TlsConfig of(Path certChain, Path privateKey) {
    return new TlsConfig(certChain, privateKey, null, ClientAuth.NONE, false);
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
        + "]";
  }
}
