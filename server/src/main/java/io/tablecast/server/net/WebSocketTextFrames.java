package io.tablecast.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;

/**
 * The WebSocket framing of what the hub writes to a WebSocket session: a {@link ByteBuf} of UTF-8
 * JSON (one message, encoded once for every session that shares it) becomes one {@link
 * TextWebSocketFrame} over the same bytes, without copying; the frame owns the buffer. Anything
 * else passes. Stateless; one instance serves every channel.
 */
@ChannelHandler.Sharable
final class WebSocketTextFrames extends ChannelOutboundHandlerAdapter {

  static final WebSocketTextFrames INSTANCE = new WebSocketTextFrames();

  private WebSocketTextFrames() {}

  @Override
  @SuppressWarnings(
      "FutureReturnValueIgnored") // it is the caller's promise, passed on: the caller holds it
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    ctx.write(msg instanceof ByteBuf json ? new TextWebSocketFrame(json) : msg, promise);
  }
}
