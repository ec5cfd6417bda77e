package io.tablecast.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * Reads a {@link Message.Change} field by field. Every change of every batch a client receives is
 * one, and Jackson's deserializer for a record gathers its properties in a buffer before calling
 * the constructor: about a seventh of the time a client took to decode a change ({@code
 * BatchCodecOnce} in the benchmark). Each field is read by the deserializer Jackson would use for
 * its type (the rules for strings, the operation's names, rows and keys in both forms stay
 * Jackson's); unknown fields are skipped, as the mapper skips them; a missing or null table,
 * operation or key fails in the record's constructor, as before.
 */
final class ChangeDeserializer extends StdDeserializer<Message.Change>
    implements ContextualDeserializer {
  private static final long serialVersionUID = 1L;

  private final transient JsonDeserializer<Object> strings;
  private final transient JsonDeserializer<Object> ops;
  private final transient JsonDeserializer<Object> keys;
  private final transient JsonDeserializer<Object> rows;

  /** The one a module registers: each mapper makes its own of it ({@link #createContextual}). */
  ChangeDeserializer() {
    this(null, null, null, null);
  }

  private ChangeDeserializer(
      JsonDeserializer<Object> strings,
      JsonDeserializer<Object> ops,
      JsonDeserializer<Object> keys,
      JsonDeserializer<Object> rows) {
    super(Message.Change.class);
    this.strings = strings;
    this.ops = ops;
    this.keys = keys;
    this.rows = rows;
  }

  /** A deserializer with the field types' deserializers of the mapper {@code ctxt} belongs to. */
  @Override
  public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
      throws JsonMappingException {
    return new ChangeDeserializer(
        ctxt.findRootValueDeserializer(ctxt.constructType(String.class)),
        ctxt.findRootValueDeserializer(ctxt.constructType(Op.class)),
        ctxt.findRootValueDeserializer(ctxt.constructType(ArrayNode.class)),
        ctxt.findRootValueDeserializer(ctxt.constructType(ObjectNode.class)));
  }

  @Override
  public Message.Change deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.isExpectedStartObjectToken()) {
      return (Message.Change) ctxt.handleUnexpectedToken(Message.Change.class, p);
    }
    String table = null;
    Op op = null;
    ArrayNode key = null;
    ObjectNode before = null;
    ObjectNode after = null;
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      JsonToken token = p.nextToken();
      switch (name) {
        case "table":
          table = (String) value(strings, token, p, ctxt);
          break;
        case "op":
          op = (Op) value(ops, token, p, ctxt);
          break;
        case "key":
          key = (ArrayNode) value(keys, token, p, ctxt);
          break;
        case "before":
          before = (ObjectNode) value(rows, token, p, ctxt);
          break;
        case "after":
          after = (ObjectNode) value(rows, token, p, ctxt);
          break;
        default:
          p.skipChildren(); // a field of a later version
      }
    }
    if (p.currentToken() != JsonToken.END_OBJECT) {
      return (Message.Change) ctxt.handleUnexpectedToken(Message.Change.class, p);
    }
    return new Message.Change(table, op, key, before, after);
  }

  private static Object value(
      JsonDeserializer<Object> deserializer,
      JsonToken token,
      JsonParser p,
      DeserializationContext ctxt)
      throws IOException {
    return token == JsonToken.VALUE_NULL ? null : deserializer.deserialize(p, ctxt);
  }
}
