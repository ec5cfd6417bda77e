package io.tablecast.client.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of TLS: a Netty {@link SslContext} (JDK provider) trusting either the JVM's
 * default trust store or the given PEM certificates, optionally with a client certificate, and
 * per-connection {@link SslHandler}s with SNI and hostname verification for the server being
 * connected to.
 *
 * <p>The files are read again at each new connection and the context rebuilt when their contents
 * changed: a client certificate or a trusted CA renewed in place (cert-manager, a Vault agent) is
 * used from the next connection on, without restarting the service. Files that cannot be used
 * (caught half written) leave the previous context in use, with a WARN, until they change again.
 */
public final class ClientTls {
  private static final Logger log = LoggerFactory.getLogger(ClientTls.class);

  /** The server a channel is connecting to (set on the bootstrap, read by the initializer). */
  static final AttributeKey<InetSocketAddress> TARGET =
      AttributeKey.valueOf("tablecast.client.target");

  private final Path trusted;
  private final Path chain;
  private final Path key;
  private final boolean verifyHostname;
  private final String description;
  private SslContext context;
  private byte[] contextFiles;
  private byte[] refusedFiles;

  private ClientTls(Path trusted, Path chain, Path key, boolean verifyHostname) {
    this.trusted = trusted;
    this.chain = chain;
    this.key = key;
    this.verifyHostname = verifyHostname;
    this.description =
        "TLS trusting "
            + (trusted == null ? "the JVM trust store" : trusted)
            + (chain == null ? "" : ", client certificate " + chain)
            + (verifyHostname ? "" : ", hostname NOT verified");
  }

  /**
   * Builds the context.
   *
   * @param trustedCertPem PEM certificates (CA or the server's own) to trust; null = the JVM's
   *     default trust store
   * @param clientCertChainPem PEM client certificate chain, or null for none
   * @param clientKeyPem PEM unencrypted PKCS#8 key of the client certificate, or null
   * @throws IllegalArgumentException naming the unreadable or unusable file
   */
  public static ClientTls create(
      Path trustedCertPem, Path clientCertChainPem, Path clientKeyPem, boolean verifyHostname) {
    if ((clientCertChainPem == null) != (clientKeyPem == null)) {
      throw new IllegalArgumentException(
          "tls client certificate needs both clientCertChainPem and clientKeyPem");
    }
    ClientTls tls = new ClientTls(trustedCertPem, clientCertChainPem, clientKeyPem, verifyHostname);
    tls.context = tls.build(); // names a file that cannot be used
    try {
      tls.contextFiles = tls.fingerprint();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the tls files: " + e, e);
    }
    return tls;
  }

  private SslContext build() {
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
    if (trusted != null) {
      file("tls trustedCertPem", trusted);
      try {
        b.trustManager(trusted.toFile());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "tls trustedCertPem '" + trusted + "' is not a PEM certificate file: " + e.getMessage(),
            e);
      }
    }
    if (chain != null) {
      file("tls clientCertChainPem", chain);
      file("tls clientKeyPem", key);
      try {
        b.keyManager(chain.toFile(), key.toFile());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "tls client certificate '"
                + chain
                + "' / key '"
                + key
                + "' cannot be used (PEM chain and unencrypted PKCS#8 PEM key expected): "
                + e.getMessage(),
            e);
      }
    }
    b.endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
    try {
      return b.build();
    } catch (SSLException e) {
      throw new IllegalArgumentException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  /**
   * The context for a new connection: rebuilt first when the files' contents changed since the
   * context in use was built, kept when the new ones cannot be used.
   */
  synchronized SslContext context() {
    byte[] files;
    try {
      files = fingerprint();
    } catch (IOException | RuntimeException e) {
      log.warn(
          "cannot read the TLS files ({}), connecting with the ones read before", e.toString());
      return context;
    }
    if (MessageDigest.isEqual(files, contextFiles) || MessageDigest.isEqual(files, refusedFiles)) {
      return context;
    }
    try {
      context = build();
      contextFiles = files;
      refusedFiles = null;
      log.info("TLS files changed: connecting with them from now on ({})", description);
    } catch (IllegalArgumentException e) {
      refusedFiles = files;
      log.warn(
          "TLS files changed but cannot be used, connecting with the ones read before until they"
              + " change again: {}",
          e.getMessage());
    }
    return context;
  }

  /** SHA-256 of the files' contents (none when the JVM's trust store alone is used). */
  private byte[] fingerprint() throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
    for (Path p : new Path[] {trusted, chain, key}) {
      if (p != null) {
        sha.update(Files.readAllBytes(p));
        sha.update((byte) 0);
      }
    }
    return sha.digest();
  }

  private static void file(String what, Path p) {
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new IllegalArgumentException(what + " must be a readable PEM file, was '" + p + "'");
    }
  }

  /** A handler for one connection to {@code server}: SNI and hostname check use its host name. */
  SslHandler newHandler(ByteBufAllocator alloc, InetSocketAddress server) {
    SslHandler h = context().newHandler(alloc, server.getHostString(), server.getPort());
    SSLEngine engine = h.engine();
    SSLParameters p = engine.getSSLParameters();
    p.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
    engine.setSSLParameters(p);
    return h;
  }

  /** A readable explanation of a TLS failure talking to {@code server}. */
  static String explain(InetSocketAddress server, Throwable cause) {
    Throwable root = cause;
    String hint = null;
    for (Throwable c = cause; c != null; c = c.getCause()) {
      root = c;
      if (hint == null
          && (c instanceof CertPathBuilderException || c instanceof CertPathValidatorException)) {
        hint =
            "the server's certificate is not trusted (give the CA that signed it to "
                + "TablecastClient.builder().tls(trustedCertPem))";
      } else if (hint == null
          && c instanceof CertificateException
          && c.getMessage() != null
          && c.getMessage().contains("No subject alternative")) {
        hint =
            "the server's certificate does not name "
                + server.getHostString()
                + " (its subject alternative names must include the host you connect to)";
      }
      if (c.getCause() == c) {
        break;
      }
    }
    if (hint == null
        && root.getMessage() != null
        && root.getMessage().contains("certificate_required")) {
      hint =
          "the server requires a client certificate (TablecastClient.builder().tls(ca, certChain, key))";
    }
    if (hint == null
        && root.getMessage() != null
        && root.getMessage().contains("bad_certificate")) {
      hint = "the server refused the client certificate (missing, or not signed by its client_ca)";
    }
    if (root instanceof io.netty.handler.ssl.NotSslRecordException) {
      // its message is the answer's bytes in hex, which say nothing to a person
      return "TLS with "
          + server.getHostString()
          + ":"
          + server.getPort()
          + " failed: the server answered in plaintext, not TLS: turn TLS on at the server (its"
          + " tls: section, docs/TLS.md) or connect without TLS";
    }
    String detail = root.getMessage() == null ? root.toString() : root.getMessage();
    return "TLS with "
        + server.getHostString()
        + ":"
        + server.getPort()
        + " failed: "
        + (hint == null ? detail : hint + "; " + detail);
  }

  @Override
  public String toString() {
    return description;
  }
}
