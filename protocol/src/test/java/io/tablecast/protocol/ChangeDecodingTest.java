package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A change in a binary batch frame is read field by field ({@link ChangeDeserializer}) with the
 * rules Jackson's record deserializer applied: fields in any order, unknown fields skipped, rows
 * and keys in both forms, and a missing or mistyped field a {@code BAD_FRAME} naming it.
 */
class ChangeDecodingTest {
  private static final CBORMapper CBOR = new CBORMapper();

  @Test
  void readsTheFieldsInAnyOrderSkippingUnknownOnesInBothRowForms() throws Exception {
    Map<String, Object> packed = new LinkedHashMap<>();
    packed.put("future", Map.of("nested", List.of(1, 2)));
    packed.put("after", new byte[] {1, 2, 3});
    packed.put("key", new byte[] {1});
    packed.put("op", "UPDATE");
    packed.put("table", "app.t");
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("table", "app.t");
    tree.put("op", "DELETE");
    tree.put("key", List.of(7));
    tree.put("before", Map.of("id", 7, "price", 1.50));
    tree.put("after", null);

    List<Message.Change> changes = decode(List.of(packed, tree));

    Message.Change first = changes.get(0);
    assertThat(first.table()).isEqualTo("app.t");
    assertThat(first.op()).isEqualTo(Op.UPDATE);
    assertThat(first.key()).isInstanceOf(PackedKey.class);
    assertThat(((PackedKey) first.key()).bytes()).containsExactly(1);
    assertThat(((PackedRow) first.after()).bytes()).containsExactly(1, 2, 3);
    assertThat(first.before()).isNull();
    Message.Change second = changes.get(1);
    assertThat(second.op()).isEqualTo(Op.DELETE);
    assertThat(second.key().get(0).asInt()).isEqualTo(7);
    assertThat(second.before().get("price").decimalValue()).isEqualByComparingTo("1.50");
    assertThat(second.after()).isNull();
  }

  @Test
  void aMissingOrMistypedFieldIsABadFrameNamingIt() {
    assertBadFrame(Map.of("table", "app.t", "op", "INSERT"), "key");
    assertBadFrame(Map.of("op", "INSERT", "key", List.of(1)), "table");
    assertBadFrame(Map.of("table", 5, "op", "INSERT", "key", List.of(1)), "String");
    assertBadFrame(Map.of("table", "app.t", "op", "UPSERT", "key", List.of(1)), "UPSERT");
    assertBadFrame(Map.of("table", "app.t", "op", "INSERT", "key", "k"), "ArrayNode");
    assertBadFrame(List.of("app.t", "INSERT"), "Change");
  }

  private static void assertBadFrame(Object change, String named) {
    assertThatThrownBy(() -> decode(List.of(change)))
        .isInstanceOfSatisfying(
            ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME))
        .hasMessageContaining("malformed change_batch frame")
        .hasMessageContaining(named);
  }

  private static List<Message.Change> decode(List<Object> changes) throws Exception {
    Map<String, Object> batch = new LinkedHashMap<>();
    batch.put("position", 9);
    batch.put("captureMillis", 1);
    batch.put("changes", changes);
    ByteBuf frame = Unpooled.buffer();
    frame.writeByte(MessageType.CHANGE_BATCH.code());
    frame.writeBytes(CBOR.writeValueAsBytes(batch));
    Message.ChangeBatch decoded = (Message.ChangeBatch) MessageCodec.decodeFrameBody(frame);
    assertThat(decoded.position()).isEqualTo(9);
    return decoded.changes();
  }
}
