package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;

/**
 * How a session's messages are encoded: the binary protocol (length-prefixed CBOR frames, rows in
 * the row form from protocol version 3 on, as maps for a version-2 client) or the WebSocket
 * transport's JSON. The hub encodes a batch once per (table set, encoding, access policy) into a
 * {@link ByteBuf} and writes every session of that encoding a retained duplicate; the network
 * layer's pipeline of the session's channel frames it (a WebSocket session's buffer becomes one
 * text frame there), so the hub knows bytes, not transports.
 */
public enum Encoding {

  /**
   * {@code TCST} sessions of protocol version 3: the buffer is a whole binary frame, written as is;
   * rows and keys are byte strings of their row form, copied from the image's bytes.
   */
  BINARY {
    @Override
    public ByteBuf encode(Message message, ByteBufAllocator alloc) {
      return MessageCodec.encodeFrame(message, 3, alloc);
    }
  },

  /** {@code TCST} sessions of protocol version 2: rows and keys as CBOR maps and arrays. */
  BINARY_V2 {
    @Override
    public ByteBuf encode(Message message, ByteBufAllocator alloc) {
      return MessageCodec.encodeFrame(message, 2, alloc);
    }
  },

  /**
   * WebSocket sessions: the buffer is UTF-8 JSON, the content of one text frame, written straight
   * into it (rows from their row form, no trees).
   */
  JSON {
    @Override
    public ByteBuf encode(Message message, ByteBufAllocator alloc) {
      ByteBuf buf = alloc.buffer();
      try {
        MessageCodec.encodeJson(message, buf);
        return buf;
      } catch (RuntimeException e) {
        buf.release();
        throw e;
      }
    }
  };

  /** Encodes one message; the caller owns the returned buffer. */
  public abstract ByteBuf encode(Message message, ByteBufAllocator alloc);

  /** The encoding of a binary session that said {@code protocolVersion} in its hello. */
  public static Encoding binary(int protocolVersion) {
    return protocolVersion >= 3 ? BINARY : BINARY_V2;
  }

  /** Whether this is a binary ({@code TCST}) encoding. */
  public boolean isBinary() {
    return this != JSON;
  }
}
