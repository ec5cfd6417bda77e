package io.tablecast.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.netty.BinaryFraming;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First handler of every connection when TLS is configured; the {@link ProtocolDetector} sits
 * behind it. A connection whose first byte is {@code 0x16} (a TLS handshake record, i.e. the
 * ClientHello) gets an {@link SslHandler} in this handler's place plus a {@link TlsPeer}, and the
 * detector then sees the decrypted bytes: binary ({@code TCST}) or HTTP/WebSocket, exactly as
 * without TLS. Any other first byte is a plaintext client: with {@code tls.allow_plaintext} it is
 * passed on to the detector unchanged; otherwise it is refused with an explanation it can read (a
 * binary client gets a {@code PROTOCOL_VIOLATION} error frame, anything else an HTTP 400).
 */
final class TlsDetector extends ByteToMessageDecoder {
  private static final Logger log = LoggerFactory.getLogger(TlsDetector.class);

  /** TLS record content type "handshake": the first byte of every ClientHello. */
  static final int TLS_HANDSHAKE_RECORD = 0x16;

  static final String TLS_REQUIRED_MESSAGE =
      "this port requires TLS: connect with TLS "
          + "(Java client: TablecastClient.builder().tls(...); browsers and Node: https:// and wss:// URLs)";

  private final Supplier<SslContext> sslContext;
  private final boolean allowPlaintext;
  private final long handshakeTimeoutMillis;

  /**
   * @param sslContext the context of now, asked at each handshake ({@link
   *     ServerCertificates#current}: a renewed certificate is served from the next one)
   */
  TlsDetector(
      Supplier<SslContext> sslContext, boolean allowPlaintext, long handshakeTimeoutMillis) {
    this.sslContext = sslContext;
    this.allowPlaintext = allowPlaintext;
    this.handshakeTimeoutMillis = handshakeTimeoutMillis;
  }

  /**
   * Builds the server's TLS context from PEM files (JDK provider); {@link ServerCertificates} also
   * checks the key is the certificate's, and reads them again when they change.
   *
   * @throws IllegalArgumentException naming the file that could not be used
   */
  static SslContext serverContext(TlsConfig tls) {
    SslContextBuilder b;
    try {
      b = SslContextBuilder.forServer(tls.certChain().toFile(), tls.privateKey().toFile());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "tls.cert_chain '"
              + tls.certChain()
              + "' / tls.private_key '"
              + tls.privateKey()
              + "' cannot be used (PEM certificate chain and unencrypted PKCS#8 PEM key "
              + "\"BEGIN PRIVATE KEY\" expected; convert with: openssl pkcs8 -topk8 -nocrypt): "
              + e.getMessage(),
          e);
    }
    b.sslProvider(SslProvider.JDK);
    if (tls.clientCa() != null) {
      b.trustManager(tls.clientCa().toFile());
    }
    b.clientAuth(
        switch (tls.clientAuth()) {
          case NONE -> ClientAuth.NONE;
          case OPTIONAL -> ClientAuth.OPTIONAL;
          case REQUIRE -> ClientAuth.REQUIRE;
        });
    try {
      return b.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot build the TLS context from " + tls + ": " + e.getMessage(), e);
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!in.isReadable()) {
      return;
    }
    if (in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE_RECORD) {
      SslHandler ssl = sslContext.get().newHandler(ctx.alloc());
      ssl.setHandshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
      String name = ctx.name();
      ctx.pipeline().addAfter(name, "tls-peer", new TlsPeer());
      ctx.pipeline().replace(this, "tls", ssl); // forwards the ClientHello to the SslHandler
      return;
    }
    if (allowPlaintext) {
      ctx.pipeline().remove(this); // the protocol detector sees the plaintext bytes
      return;
    }
    refusePlaintext(ctx, in);
  }

  private void refusePlaintext(ChannelHandlerContext ctx, ByteBuf in) {
    byte[] magic = MessageCodec.MAGIC;
    int n = Math.min(in.readableBytes(), magic.length);
    boolean binary = true;
    for (int i = 0; i < n; i++) {
      binary &= in.getByte(in.readerIndex() + i) == magic[i];
    }
    if (binary && n < magic.length) {
      return; // wait for the whole magic to tell a binary client from others
    }
    log.info(
        "refusing plaintext {} connection from {}: TLS is required (tls.allow_plaintext is false)",
        binary ? "binary" : "non-TLS",
        ctx.channel().remoteAddress());
    in.skipBytes(in.readableBytes());
    ctx.channel().config().setAutoRead(false);
    if (binary) {
      ctx.pipeline().remove("detector");
      BinaryFraming.addTo(ctx.pipeline(), 1024);
      ctx.channel()
          .writeAndFlush(Message.Error.fatal(ErrorCode.PROTOCOL_VIOLATION, TLS_REQUIRED_MESSAGE))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    byte[] body = (TLS_REQUIRED_MESSAGE + "\n").getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
