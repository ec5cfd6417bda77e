package io.tablecast.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.std.JsonNodeDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import java.io.IOException;

/**
 * The Jackson module of {@link MessageCodec}'s mappers. It reads the rows and keys of messages in
 * both forms: a CBOR byte string is a row (or key) in the row form of protocol version 3, left
 * unbound ({@link PackedRow}, {@link PackedKey}) for the connection's decoder to give its table's
 * layout ({@link RowLayouts}); anything else is read as the JSON tree of version 2, as Jackson
 * reads it. Changes, the messages that carry them, are read by {@link ChangeDeserializer} and
 * written by {@link ChangeSerializer}.
 */
final class MessageCodecModule {

  private MessageCodecModule() {}

  static SimpleModule module() {
    SimpleModule m = new SimpleModule("tablecast-row-form");
    m.addDeserializer(ObjectNode.class, new Rows());
    m.addDeserializer(ArrayNode.class, new Keys());
    m.addDeserializer(Message.Change.class, new ChangeDeserializer());
    m.addSerializer(Message.Change.class, new ChangeSerializer());
    return m;
  }

  static byte[] bytes(JsonParser p, DeserializationContext ctxt, Class<?> type) throws IOException {
    Object embedded = p.getEmbeddedObject();
    if (embedded instanceof byte[] b) {
      return b;
    }
    return (byte[]) ctxt.handleUnexpectedToken(type, p);
  }

  private static final class Rows extends StdDeserializer<ObjectNode> {
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("unchecked")
    private static final JsonDeserializer<ObjectNode> TREES =
        (JsonDeserializer<ObjectNode>) JsonNodeDeserializer.getDeserializer(ObjectNode.class);

    Rows() {
      super(ObjectNode.class);
    }

    @Override
    public ObjectNode deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_EMBEDDED_OBJECT) {
        return PackedRow.of(null, bytes(p, ctxt, ObjectNode.class));
      }
      return TREES.deserialize(p, ctxt);
    }

    @Override
    public ObjectNode getNullValue(DeserializationContext ctxt) {
      try {
        return TREES.getNullValue(ctxt);
      } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static final class Keys extends StdDeserializer<ArrayNode> {
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("unchecked")
    private static final JsonDeserializer<ArrayNode> TREES =
        (JsonDeserializer<ArrayNode>) JsonNodeDeserializer.getDeserializer(ArrayNode.class);

    Keys() {
      super(ArrayNode.class);
    }

    @Override
    public ArrayNode deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_EMBEDDED_OBJECT) {
        return PackedKey.of(null, bytes(p, ctxt, ArrayNode.class));
      }
      return TREES.deserialize(p, ctxt);
    }

    @Override
    public ArrayNode getNullValue(DeserializationContext ctxt) {
      try {
        return TREES.getNullValue(ctxt);
      } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
