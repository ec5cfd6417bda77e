package io.tablecast.server.net;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.ProtocolException;
import java.util.List;

/**
 * The JSON encoding of a WebSocket session, between Netty's WebSocket handlers and the shared
 * {@link ClientSessionHandler}: a text frame carries one message ({@link MessageCodec#decodeJson});
 * a message written by the session becomes one text frame. A fatal {@code error} (no table) is
 * followed by a close frame whose status is {@link #closeStatus}; the session closes the connection
 * once both are flushed. Batches the hub encoded (UTF-8 JSON buffers) pass through untouched to
 * {@link WebSocketTextFrames}, which frames them.
 */
final class WebSocketJsonCodec extends MessageToMessageCodec<WebSocketFrame, Message> {

  @Override
  protected void decode(ChannelHandlerContext ctx, WebSocketFrame frame, List<Object> out) {
    if (frame instanceof TextWebSocketFrame text) {
      out.add(MessageCodec.decodeJson(text.text()));
    } else if (frame instanceof BinaryWebSocketFrame) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "binary WebSocket frames are not accepted: send one "
              + "JSON message per text frame (binary clients use the TCST protocol on the same port)");
    } else {
      out.add(frame.retain()); // nothing else reaches here (ping/pong/close are handled before)
    }
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Message msg, List<Object> out) {
    out.add(
        new TextWebSocketFrame(ByteBufUtil.writeUtf8(ctx.alloc(), MessageCodec.encodeJson(msg))));
    if (msg instanceof Message.Error error && error.table() == null) {
      out.add(new CloseWebSocketFrame(closeStatus(error.code()), error.code().name()));
    }
  }

  /** The WebSocket close status that follows a fatal error (documented in PROTOCOL.md). */
  static WebSocketCloseStatus closeStatus(ErrorCode code) {
    switch (code) {
      case BAD_FRAME:
        return WebSocketCloseStatus.INVALID_PAYLOAD_DATA; // 1007
      case SHUTTING_DOWN:
        return WebSocketCloseStatus.ENDPOINT_UNAVAILABLE; // 1001
      case INTERNAL:
        return WebSocketCloseStatus.INTERNAL_SERVER_ERROR; // 1011
      default:
        return WebSocketCloseStatus.POLICY_VIOLATION; // 1008
    }
  }
}
