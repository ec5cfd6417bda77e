package io.tablecast.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.tablecast.protocol.row.PackedRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes {@link Message}s.
 *
 * <p>Binary frame: {@code u32 length | u8 type code | CBOR body}, where {@code length} counts the
 * type byte and the body. JSON text: one object with a {@code "type"} field holding {@link
 * MessageType#jsonName()} and the record's fields beside it. Both encodings use the same field
 * names. Thread-safe.
 */
public final class MessageCodec {

  /** Bytes a binary client sends once, before its first frame: ASCII {@code TCST}. */
  public static final byte[] MAGIC = "TCST".getBytes(StandardCharsets.US_ASCII);

  /** Bytes of the length prefix of a binary frame. */
  public static final int LENGTH_FIELD_BYTES = 4;

  /**
   * Deepest nesting of arrays/objects a decoder accepts (both encodings). Messages nest at most a
   * few levels; row values of JSON columns may nest more, but not this deep. Deeper input is {@code
   * BAD_FRAME} instead of a deep recursion.
   */
  public static final int MAX_NESTING_DEPTH = 200;

  /**
   * No limit on one string's length (Jackson's default is 20 MB): a row value may be as large as
   * its database takes (a PostgreSQL text holds up to 1 GB), and what a decoder reads is bounded
   * already, by the frame length limit (a server's {@code max_frame_bytes}, a client's {@code
   * maxFrameBytes}) or by the database that generated the row's JSON.
   */
  private static final com.fasterxml.jackson.core.StreamReadConstraints READ_LIMITS =
      com.fasterxml.jackson.core.StreamReadConstraints.builder()
          .maxNestingDepth(MAX_NESTING_DEPTH)
          .maxStringLength(Integer.MAX_VALUE)
          .build();

  private static final ObjectMapper CBOR =
      configure(
          CBORMapper.builder(CBORFactory.builder().streamReadConstraints(READ_LIMITS).build())
              .build());
  private static final ObjectMapper JSON =
      configure(
          JsonMapper.builder(
                  com.fasterxml.jackson.core.JsonFactory.builder()
                      .streamReadConstraints(READ_LIMITS)
                      .build())
              .build());

  /** Writes rows as maps (version 2); {@link PackedRow}s are written as their JSON objects. */
  private static final ObjectWriter CBOR_TREES = CBOR.writer();

  /** Writes {@link PackedRow}s and {@link PackedKey}s as byte strings (version 3). */
  private static final ObjectWriter CBOR_ROWS =
      CBOR.writer().withAttribute(PackedRow.ROWS_AS_BYTES, true);

  /**
   * Writes a message as JSON text with its {@code "type"} first, straight into the output: rows in
   * the row form are written from their bytes, never as trees.
   */
  private static final ObjectWriter JSON_TYPED = typedJson();

  private MessageCodec() {}

  /** The JSON writer whose messages carry their type name as the first field. */
  private static ObjectWriter typedJson() {
    ObjectMapper typed = JSON.copy();
    typed.addMixIn(Message.class, TypedJson.class);
    for (MessageType t : MessageType.values()) {
      typed.registerSubtypes(
          new com.fasterxml.jackson.databind.jsontype.NamedType(t.messageClass(), t.jsonName()));
    }
    // UTF-8 output writes a character outside the BMP as its four bytes, as the text of
    // writeValueAsString does once encoded, not as an escaped surrogate pair
    return typed
        .writerFor(Message.class)
        .with(com.fasterxml.jackson.core.json.JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8);
  }

  @com.fasterxml.jackson.annotation.JsonTypeInfo(
      use = com.fasterxml.jackson.annotation.JsonTypeInfo.Id.NAME,
      include = com.fasterxml.jackson.annotation.JsonTypeInfo.As.PROPERTY,
      property = "type")
  private interface TypedJson {}

  private static ObjectMapper configure(ObjectMapper mapper) {
    mapper.setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL);
    // exact decimals: parsed as BigDecimal, trees keep the scale (trailing zeros)
    mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
    mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    mapper.registerModule(MessageCodecModule.module());
    // a message field of the wrong kind is BAD_FRAME, not silently converted: no number or
    // boolean where a string is expected, no string where a number is expected
    com.fasterxml.jackson.databind.cfg.CoercionAction fail =
        com.fasterxml.jackson.databind.cfg.CoercionAction.Fail;
    mapper
        .coercionConfigFor(com.fasterxml.jackson.databind.type.LogicalType.Textual)
        .setCoercion(com.fasterxml.jackson.databind.cfg.CoercionInputShape.Integer, fail)
        .setCoercion(com.fasterxml.jackson.databind.cfg.CoercionInputShape.Float, fail)
        .setCoercion(com.fasterxml.jackson.databind.cfg.CoercionInputShape.Boolean, fail);
    mapper
        .coercionConfigFor(com.fasterxml.jackson.databind.type.LogicalType.Integer)
        .setCoercion(com.fasterxml.jackson.databind.cfg.CoercionInputShape.String, fail)
        .setCoercion(com.fasterxml.jackson.databind.cfg.CoercionInputShape.Float, fail);
    return mapper;
  }

  /** A JSON mapper with the settings used for rows: exact decimals, big integers kept. */
  public static ObjectMapper jsonMapper() {
    return JSON;
  }

  /** Encodes a whole binary frame, length prefix included, into a new buffer. */
  public static ByteBuf encodeFrame(Message message, ByteBufAllocator alloc) {
    ByteBuf buf = alloc.buffer();
    try {
      encodeFrame(message, buf);
      return buf;
    } catch (RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  /**
   * Encodes a whole binary frame for a session of {@code protocolVersion} into a new buffer: from
   * version 3 on, rows and keys in the row form travel as byte strings.
   */
  public static ByteBuf encodeFrame(Message message, int protocolVersion, ByteBufAllocator alloc) {
    ByteBuf buf = alloc.buffer();
    try {
      encodeFrame(message, protocolVersion, buf);
      return buf;
    } catch (RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  /**
   * Appends a whole binary frame of the current version, length prefix included, to {@code out}.
   */
  public static void encodeFrame(Message message, ByteBuf out) {
    encodeFrame(message, Message.PROTOCOL_VERSION, out);
  }

  /**
   * Appends a whole binary frame for a session of {@code protocolVersion}, length prefix included,
   * to {@code out}.
   */
  public static void encodeFrame(Message message, int protocolVersion, ByteBuf out) {
    int start = out.writerIndex();
    out.writeInt(0);
    out.writeByte(message.type().code());
    try (ByteBufOutputStream stream = new DoublingOutputStream(out)) {
      (protocolVersion >= 3 ? CBOR_ROWS : CBOR_TREES)
          .writeValue((java.io.OutputStream) stream, message);
    } catch (IOException e) {
      throw new ProtocolException(ErrorCode.INTERNAL, "cannot encode " + message.type(), e);
    }
    out.setInt(start, out.writerIndex() - start - LENGTH_FIELD_BYTES);
  }

  /**
   * Decodes the content of one frame (type byte and body, without the length prefix).
   *
   * @throws ProtocolException with {@link ErrorCode#BAD_FRAME} saying what was wrong
   */
  public static Message decodeFrameBody(ByteBuf body) {
    if (!body.isReadable()) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME, "empty frame: expected a type byte and a body");
    }
    MessageType type = MessageType.forCode(body.readUnsignedByte());
    try (ByteBufInputStream in = new ByteBufInputStream(body)) {
      Message m = CBOR.readValue((java.io.InputStream) in, type.messageClass());
      if (m == null) {
        throw new ProtocolException(ErrorCode.BAD_FRAME, "empty body for " + type.jsonName());
      }
      return m;
    } catch (IOException | RuntimeException e) {
      if (e instanceof ProtocolException protocolError) {
        throw protocolError;
      }
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "malformed " + type.jsonName() + " frame: " + DecodeProblems.of(e),
          e);
    }
  }

  /** Encodes a message as one JSON text. */
  public static String encodeJson(Message message) {
    try {
      return JSON_TYPED.writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new ProtocolException(ErrorCode.INTERNAL, "cannot encode " + message.type(), e);
    }
  }

  /**
   * Appends a message as UTF-8 JSON text to {@code out}, written straight into the buffer (rows in
   * the row form from their bytes): the same text as {@link #encodeJson}.
   */
  public static void encodeJson(Message message, ByteBuf out) {
    try (ByteBufOutputStream stream = new DoublingOutputStream(out)) {
      JSON_TYPED.writeValue((java.io.OutputStream) stream, message);
    } catch (IOException e) {
      throw new ProtocolException(ErrorCode.INTERNAL, "cannot encode " + message.type(), e);
    }
  }

  /**
   * Decodes one JSON text message.
   *
   * @throws ProtocolException with {@link ErrorCode#BAD_FRAME} saying what was wrong
   */
  public static Message decodeJson(String text) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (IOException e) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME, "malformed JSON message: " + DecodeProblems.rootMessage(e), e);
    }
    if (node == null || !node.isObject()) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME, "a message must be a JSON object with a \"type\" field");
    }
    JsonNode typeNode = node.get("type");
    if (typeNode == null || !typeNode.isTextual()) {
      throw new ProtocolException(ErrorCode.BAD_FRAME, "message has no \"type\" string field");
    }
    MessageType type = MessageType.forJsonName(typeNode.asText());
    ((ObjectNode) node).remove("type");
    try {
      return JSON.treeToValue(node, type.messageClass());
    } catch (IOException | RuntimeException e) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "malformed " + type.jsonName() + " message: " + DecodeProblems.of(e),
          e);
    }
  }
}
