package io.tablecast.server.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What TLS established about the peer of a connection, as channel attributes set when the handshake
 * completes (before the first decrypted byte reaches the protocol detector, so the session handlers
 * see them from the hello on):
 *
 * <ul>
 *   <li>{@link #SUBJECT}: the verified client certificate's subject DN (RFC 2253, e.g. {@code
 *       CN=billing,O=Example}); absent without a client certificate;
 *   <li>{@link #CERTIFICATE}: that certificate;
 *   <li>{@link #PROTOCOL}: the negotiated protocol and cipher suite, e.g. {@code TLSv1.3
 *       TLS_AES_128_GCM_SHA256}; absent on plaintext connections.
 * </ul>
 *
 * <p>The handler that sets them sits right behind the {@link SslHandler}; it logs the outcome of
 * every handshake and removes itself afterwards.
 */
public final class TlsPeer extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(TlsPeer.class);

  /** Subject DN (RFC 2253) of the verified client certificate. */
  public static final AttributeKey<String> SUBJECT = AttributeKey.valueOf("tablecast.tls.subject");

  /** The verified client certificate (leaf). */
  public static final AttributeKey<X509Certificate> CERTIFICATE =
      AttributeKey.valueOf("tablecast.tls.certificate");

  /** Negotiated protocol and cipher suite; set on every TLS connection. */
  public static final AttributeKey<String> PROTOCOL =
      AttributeKey.valueOf("tablecast.tls.protocol");

  /** The client certificate subject of a channel, or null (plaintext or no certificate). */
  public static String subject(Channel ch) {
    return ch.attr(SUBJECT).get();
  }

  /** True when the channel runs over TLS (its handshake completed). */
  public static boolean isTls(Channel ch) {
    return ch.attr(PROTOCOL).get() != null;
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        SSLSession session = ctx.pipeline().get(SslHandler.class).engine().getSession();
        Channel ch = ctx.channel();
        ch.attr(PROTOCOL).set(session.getProtocol() + " " + session.getCipherSuite());
        X509Certificate peer = peerCertificate(session);
        if (peer != null) {
          String subject = peer.getSubjectX500Principal().getName();
          ch.attr(CERTIFICATE).set(peer);
          ch.attr(SUBJECT).set(subject);
          log.info(
              "TLS connection from {} ({}), client certificate subject {}",
              ch.remoteAddress(),
              ch.attr(PROTOCOL).get(),
              subject);
        } else {
          log.debug(
              "TLS connection from {} ({}), no client certificate",
              ch.remoteAddress(),
              ch.attr(PROTOCOL).get());
        }
        ctx.pipeline().remove(this);
      } else {
        // stays in the pipeline to swallow the same failure arriving as an exception
        log.info(
            "TLS handshake from {} failed: {}",
            ctx.channel().remoteAddress(),
            describe(done.cause()));
        ctx.close();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // a failed handshake is logged once above; the SslHandler closes the connection
    if (isHandshakeFailure(cause)) {
      ctx.close();
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  private static boolean isHandshakeFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof javax.net.ssl.SSLException) {
        return true;
      }
    }
    return false;
  }

  static String describe(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == cause ? cause.toString() : cause + " (" + root + ")";
  }

  private static X509Certificate peerCertificate(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }
}
