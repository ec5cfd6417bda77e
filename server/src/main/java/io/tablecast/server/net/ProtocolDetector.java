package io.tablecast.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.tablecast.protocol.MessageCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * First handler of every connection: looks at the first bytes and installs the pipeline of the
 * protocol they announce. {@code TCST} (the binary magic) installs the binary pipeline; an HTTP
 * request line ({@code GET }, {@code POST }, ... : a method token and a space) installs the
 * HTTP/WebSocket pipeline; anything else goes to {@link Protocols#other}, which answers with an
 * HTTP 400 and closes.
 */
final class ProtocolDetector extends ByteToMessageDecoder {

  /** What to install once the protocol is known. */
  interface Protocols {
    /** Installs the binary pipeline; the magic has been consumed. */
    void binary(ChannelPipeline pipeline);

    /** Installs the HTTP/WebSocket pipeline; the request bytes are passed on to it. */
    void http(ChannelPipeline pipeline);

    /**
     * Handles a connection that did not start with the magic. The detector is removed after this
     * call and the bytes read so far are passed on to the handlers this call installed.
     */
    void other(ChannelHandlerContext ctx);
  }

  static final String NOT_BINARY_MESSAGE =
      "this port speaks the Tablecast binary protocol (magic TCST) "
          + "and HTTP (WebSocket at /ws, GET /health, GET /metrics)\n";

  /** Request-line starts that select the HTTP pipeline (the method token and its space). */
  private static final byte[][] HTTP_METHODS =
      ascii(
          "GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "TRACE ", "CONNECT ");

  private static byte[][] ascii(String... tokens) {
    byte[][] b = new byte[tokens.length][];
    for (int i = 0; i < tokens.length; i++) {
      b[i] = tokens[i].getBytes(StandardCharsets.US_ASCII);
    }
    return b;
  }

  private final Protocols protocols;

  ProtocolDetector(Protocols protocols) {
    this.protocols = protocols;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    byte[] magic = MessageCodec.MAGIC;
    switch (match(in, magic)) {
      case MATCH:
        break;
      case MAYBE:
        return; // wait for more bytes
      default:
        boolean maybeHttp = false;
        for (byte[] method : HTTP_METHODS) {
          Match m = match(in, method);
          if (m == Match.MATCH) {
            protocols.http(ctx.pipeline());
            ctx.pipeline().remove(this); // forwards the request bytes to the HTTP codec
            return;
          }
          maybeHttp |= m == Match.MAYBE;
        }
        if (!maybeHttp) {
          protocols.other(ctx);
          ctx.pipeline().remove(this);
        }
        return;
    }
    in.skipBytes(magic.length);
    protocols.binary(ctx.pipeline());
    ctx.pipeline().remove(this); // forwards the bytes after the magic to the new handlers
  }

  private enum Match {
    MATCH,
    MAYBE,
    NO
  }

  /** Whether the readable bytes start with {@code token} (MAYBE: too few bytes to tell yet). */
  private static Match match(ByteBuf in, byte[] token) {
    int n = Math.min(in.readableBytes(), token.length);
    for (int i = 0; i < n; i++) {
      if (in.getByte(in.readerIndex() + i) != token[i]) {
        return Match.NO;
      }
    }
    return n < token.length ? Match.MAYBE : Match.MATCH;
  }

  /**
   * Answers a non-binary client with an HTTP 400 that plain-text clients can read too, then closes.
   */
  static void rejectNotBinary(ChannelHandlerContext ctx) {
    byte[] body = NOT_BINARY_MESSAGE.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    ByteBuf reply = Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body);
    ctx.channel().config().setAutoRead(false);
    ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
  }
}
