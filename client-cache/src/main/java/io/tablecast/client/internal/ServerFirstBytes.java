package io.tablecast.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Keeps the first bytes a server sends on a connection, before any frame is decoded, so that an
 * answer that is not the Tablecast protocol (the port of a database, a broker, a web server) can be
 * shown for what it is instead of being read as a frame's length. Removes itself after the first
 * read.
 */
final class ServerFirstBytes extends ChannelInboundHandlerAdapter {

  /** The first bytes, printable ASCII kept and the rest shown as dots. */
  static final AttributeKey<String> SEEN = AttributeKey.valueOf("tablecast.serverFirstBytes");

  /** How many are kept. */
  static final int KEPT = 40;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) {
      byte[] bytes = new byte[Math.min(KEPT, b.readableBytes())];
      b.getBytes(b.readerIndex(), bytes);
      ctx.channel().attr(SEEN).set(printable(bytes));
    }
    ctx.pipeline().remove(this);
    ctx.fireChannelRead(msg);
  }

  static String printable(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      sb.append(b >= 0x20 && b < 0x7f ? (char) b : '.');
    }
    return sb.toString();
  }
}
