package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;

/**
 * How a session's messages travel: the binary protocol (length-prefixed CBOR frames) or the
 * WebSocket transport (one JSON text per text frame). The hub encodes a batch once per
 * (table set, encoding) into a {@link ByteBuf} and hands every session of that encoding a
 * retained duplicate; {@link #wrap} turns such a buffer into what the session's channel
 * accepts, without copying.
 */
public enum Encoding {

  /** {@code TCST} sessions: the buffer is a whole binary frame, written as is. */
  BINARY {
    @Override
    public ByteBuf encode(Message message, ByteBufAllocator alloc) {
      return MessageCodec.encodeFrame(message, alloc);
    }

    @Override
    public Object wrap(ByteBuf encoded) {
      return encoded;
    }
  },

  /** WebSocket sessions: the buffer is UTF-8 JSON, the content of one text frame. */
  JSON {
    @Override
    public ByteBuf encode(Message message, ByteBufAllocator alloc) {
      return ByteBufUtil.writeUtf8(alloc, MessageCodec.encodeJson(message));
    }

    @Override
    public Object wrap(ByteBuf encoded) {
      return new TextWebSocketFrame(encoded);
    }
  };

  /** Encodes one message; the caller owns the returned buffer. */
  public abstract ByteBuf encode(Message message, ByteBufAllocator alloc);

  /** What to write to a channel of this encoding; takes ownership of {@code encoded}. */
  public abstract Object wrap(ByteBuf encoded);
}
