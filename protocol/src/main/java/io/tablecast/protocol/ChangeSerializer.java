package io.tablecast.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;

/**
 * Writes a {@link Message.Change} field by field, in the record's order and without its null
 * fields, as Jackson's serializer for the record wrote it (the golden bytes of {@code
 * docs/PROTOCOL.md} are unchanged): that serializer read each field through reflection, a call per
 * field of every change of every batch on the hub thread ({@code BatchCodecOnce} in the benchmark
 * times the writing too). Rows and keys write themselves ({@link
 * com.fasterxml.jackson.databind.JsonSerializable}), in the form the generator asks for.
 */
final class ChangeSerializer extends StdSerializer<Message.Change> {
  private static final long serialVersionUID = 1L;

  private static final SerializedString TABLE = new SerializedString("table");
  private static final SerializedString OP = new SerializedString("op");
  private static final SerializedString KEY = new SerializedString("key");
  private static final SerializedString BEFORE = new SerializedString("before");
  private static final SerializedString AFTER = new SerializedString("after");

  ChangeSerializer() {
    super(Message.Change.class);
  }

  @Override
  public void serialize(Message.Change change, JsonGenerator g, SerializerProvider provider)
      throws IOException {
    g.writeStartObject(change);
    g.writeFieldName(TABLE);
    g.writeString(change.table());
    g.writeFieldName(OP);
    g.writeString(change.op().name());
    g.writeFieldName(KEY);
    change.key().serialize(g, provider);
    if (change.before() != null) {
      g.writeFieldName(BEFORE);
      change.before().serialize(g, provider);
    }
    if (change.after() != null) {
      g.writeFieldName(AFTER);
      change.after().serialize(g, provider);
    }
    g.writeEndObject();
  }
}
