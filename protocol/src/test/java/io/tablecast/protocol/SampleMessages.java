package io.tablecast.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One representative instance of every message type, shared by the codec tests here and, through
 * this module's test jar, the server's decoder mutation test (as its seeds). The golden bytes of
 * {@link GoldenBytesTest} pin them: change a sample and its golden bytes together.
 */
public final class SampleMessages {
  private static final JsonNodeFactory F = JsonNodeFactory.withExactBigDecimals(true);

  private SampleMessages() {}

  public static ObjectNode row() {
    ObjectNode row = F.objectNode();
    row.put("id", 7);
    row.put("name", "Zoë 🎉");
    row.put("price", "12.3400");
    row.put("big", new BigInteger("18446744073709551615"));
    row.put("ratio", new BigDecimal("0.5"));
    row.putNull("note");
    return row;
  }

  public static Map<MessageType, Message> all() {
    List<ColumnInfo> cols = List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
        new ColumnInfo("name", "varchar(40)", ColumnKind.STRING));
    ArrayNode key = F.arrayNode().add(7);
    Map<MessageType, Message> m = new LinkedHashMap<>();
    m.put(MessageType.HELLO, new Message.Hello(Message.PROTOCOL_VERSION, "svc", "alice", "pw", null));
    m.put(MessageType.WELCOME, new Message.Welcome(2, "tablecast", "e1", 42, 1000));
    m.put(MessageType.SUBSCRIBE, new Message.Subscribe(List.of("app.items"), "e1", 41));
    m.put(MessageType.SNAPSHOT_BEGIN, new Message.SnapshotBegin("app.items", cols, List.of("id"), 42, 1));
    m.put(MessageType.SNAPSHOT_ROWS, new Message.SnapshotRows("app.items", List.of(row())));
    m.put(MessageType.SNAPSHOT_END, new Message.SnapshotEnd("app.items", 42));
    m.put(MessageType.RESUMED, new Message.Resumed(List.of("app.items"),
        List.of(new Message.TableSchemaInfo("app.items", cols, List.of("id"))), 41));
    m.put(MessageType.CHANGE_BATCH, new Message.ChangeBatch(43, 1700000000000L, List.of(
        new Message.Change("app.items", Op.UPDATE, key, row(), row()),
        new Message.Change("app.items", Op.DELETE, key, row(), null))));
    m.put(MessageType.ERROR, new Message.Error(ErrorCode.UNKNOWN_TABLE, "no table app.nope", "app.nope"));
    m.put(MessageType.PING, new Message.Ping(7));
    m.put(MessageType.PONG, new Message.Pong(7));
    m.put(MessageType.SCHEMA_CHANGED, new Message.SchemaChanged("app.items", 2, cols, List.of("id")));
    m.put(MessageType.TABLE_STATUS, new Message.TableStatus("app.items", true,
        "a row of app.items with key [7] cannot be read"));
    m.put(MessageType.CHANGE_PART, new Message.ChangePart(43, List.of(
        new Message.Change("app.items", Op.INSERT, key, null, row()))));
    if (m.size() != MessageType.values().length) {
      throw new IllegalStateException("a message type has no sample: add one here (and its golden bytes)");
    }
    return m;
  }
}
