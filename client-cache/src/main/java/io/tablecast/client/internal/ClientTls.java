package io.tablecast.client.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The client side of TLS: a Netty {@link SslContext} (JDK provider) trusting either the JVM's
 * default trust store or the given PEM certificates, optionally with a client certificate, and
 * per-connection {@link SslHandler}s with SNI and hostname verification for the server being
 * connected to.
 */
public final class ClientTls {

  /** The server a channel is connecting to (set on the bootstrap, read by the initializer). */
  static final AttributeKey<InetSocketAddress> TARGET =
      AttributeKey.valueOf("tablecast.client.target");

  private final SslContext context;
  private final boolean verifyHostname;
  private final String description;

  private ClientTls(SslContext context, boolean verifyHostname, String description) {
    this.context = context;
    this.verifyHostname = verifyHostname;
    this.description = description;
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
    SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
    if (trustedCertPem != null) {
      file("tls trustedCertPem", trustedCertPem);
      try {
        b.trustManager(trustedCertPem.toFile());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "tls trustedCertPem '"
                + trustedCertPem
                + "' is not a PEM certificate file: "
                + e.getMessage(),
            e);
      }
    }
    if ((clientCertChainPem == null) != (clientKeyPem == null)) {
      throw new IllegalArgumentException(
          "tls client certificate needs both clientCertChainPem and clientKeyPem");
    }
    if (clientCertChainPem != null) {
      file("tls clientCertChainPem", clientCertChainPem);
      file("tls clientKeyPem", clientKeyPem);
      try {
        b.keyManager(clientCertChainPem.toFile(), clientKeyPem.toFile());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "tls client certificate '"
                + clientCertChainPem
                + "' / key '"
                + clientKeyPem
                + "' cannot be used (PEM chain and unencrypted PKCS#8 PEM key expected): "
                + e.getMessage(),
            e);
      }
    }
    b.endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
    try {
      return new ClientTls(
          b.build(),
          verifyHostname,
          "TLS trusting "
              + (trustedCertPem == null ? "the JVM trust store" : trustedCertPem)
              + (clientCertChainPem == null ? "" : ", client certificate " + clientCertChainPem)
              + (verifyHostname ? "" : ", hostname NOT verified"));
    } catch (SSLException e) {
      throw new IllegalArgumentException("cannot build the TLS context: " + e.getMessage(), e);
    }
  }

  private static void file(String what, Path p) {
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new IllegalArgumentException(what + " must be a readable PEM file, was '" + p + "'");
    }
  }

  /** A handler for one connection to {@code server}: SNI and hostname check use its host name. */
  SslHandler newHandler(ByteBufAllocator alloc, InetSocketAddress server) {
    SslHandler h = context.newHandler(alloc, server.getHostString(), server.getPort());
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
