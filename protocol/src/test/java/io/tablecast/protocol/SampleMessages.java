package io.tablecast.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
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

  /** The columns of {@link #formRow()}: the row form's layout of the version-3 samples. */
  public static RowForm sampleForm() {
    return new RowForm(
        List.of(
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("name", "varchar(40)", ColumnKind.STRING),
            new ColumnInfo("price", "decimal(12,4)", ColumnKind.DECIMAL),
            new ColumnInfo("big", "bigint unsigned", ColumnKind.INTEGER),
            new ColumnInfo("ratio", "double", ColumnKind.FLOAT),
            new ColumnInfo("note", "text", ColumnKind.STRING)),
        List.of("id"));
  }

  /** {@link #row()} with the ratio as a double, as a FLOAT column's value is read. */
  public static ObjectNode formRow() {
    ObjectNode row = row();
    row.put("ratio", 0.5d);
    return row;
  }

  /**
   * The row-carrying samples with their rows and keys in the row form ({@link PackedRow}, {@link
   * PackedKey}), and the snapshot_begin that announces their layout.
   */
  public static Map<MessageType, Message> rowForm() {
    RowForm form = sampleForm();
    byte[] bytes = form.encode(formRow());
    ObjectNode row = PackedRow.of(form, bytes);
    ArrayNode key = PackedKey.of(form, form.keyOf(bytes));
    return samplesWith(form, key, row);
  }

  /** {@link #rowForm()} with its rows and keys as the trees they read as. */
  public static Map<MessageType, Message> rowFormAsTrees() {
    RowForm form = sampleForm();
    byte[] bytes = form.encode(formRow());
    return samplesWith(form, form.keyToNode(form.keyOf(bytes)), form.toNode(bytes));
  }

  private static Map<MessageType, Message> samplesWith(
      RowForm form, ArrayNode key, ObjectNode row) {
    Map<MessageType, Message> m = new LinkedHashMap<>();
    m.put(
        MessageType.SNAPSHOT_BEGIN,
        new Message.SnapshotBegin("app.items", form.columns(), form.primaryKey(), 42, 1));
    m.put(MessageType.SNAPSHOT_ROWS, new Message.SnapshotRows("app.items", List.of(row)));
    m.put(
        MessageType.CHANGE_BATCH,
        new Message.ChangeBatch(
            43,
            1700000000000L,
            List.of(
                new Message.Change("app.items", Op.UPDATE, key, row, row),
                new Message.Change("app.items", Op.DELETE, key, row, null))));
    m.put(
        MessageType.CHANGE_PART,
        new Message.ChangePart(
            43, List.of(new Message.Change("app.items", Op.INSERT, key, null, row))));
    return m;
  }

  public static Map<MessageType, Message> all() {
    List<ColumnInfo> cols =
        List.of(
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("name", "varchar(40)", ColumnKind.STRING));
    ArrayNode key = F.arrayNode().add(7);
    Map<MessageType, Message> m = new LinkedHashMap<>();
    m.put(
        MessageType.HELLO, new Message.Hello(Message.PROTOCOL_VERSION, "svc", "alice", "pw", null));
    m.put(MessageType.WELCOME, new Message.Welcome(2, "tablecast", "e1", 42, 1000));
    m.put(
        MessageType.SUBSCRIBE,
        new Message.Subscribe(
            List.of("app.items"),
            "e1",
            41,
            List.of("app.items"),
            Map.of(
                "app.items",
                new Message.Shape(
                    "price < ? AND name IS NOT NULL",
                    List.of(F.numberNode(100)),
                    List.of("name")))));
    m.put(
        MessageType.SNAPSHOT_BEGIN,
        new Message.SnapshotBegin("app.items", cols, List.of("id"), 42, 1));
    m.put(MessageType.SNAPSHOT_ROWS, new Message.SnapshotRows("app.items", List.of(row())));
    m.put(MessageType.SNAPSHOT_END, new Message.SnapshotEnd("app.items", 42));
    m.put(
        MessageType.RESUMED,
        new Message.Resumed(
            List.of("app.items"),
            List.of(new Message.TableSchemaInfo("app.items", cols, List.of("id"))),
            41));
    m.put(
        MessageType.CHANGE_BATCH,
        new Message.ChangeBatch(
            43,
            1700000000000L,
            List.of(
                new Message.Change("app.items", Op.UPDATE, key, row(), row()),
                new Message.Change("app.items", Op.DELETE, key, row(), null))));
    m.put(
        MessageType.ERROR,
        new Message.Error(ErrorCode.UNKNOWN_TABLE, "no table app.nope", "app.nope"));
    m.put(MessageType.PING, new Message.Ping(7));
    m.put(MessageType.PONG, new Message.Pong(7));
    m.put(MessageType.SYNC, new Message.Sync(3));
    m.put(MessageType.SYNCED, new Message.Synced(3, 44, null));
    m.put(MessageType.FETCH, new Message.Fetch(5, "app.items", List.of(key)));
    m.put(MessageType.FETCHED, new Message.Fetched(5, "app.items", 44, List.of(row()), null));
    m.put(
        MessageType.SCHEMA_CHANGED, new Message.SchemaChanged("app.items", 2, cols, List.of("id")));
    m.put(
        MessageType.TABLE_STATUS,
        new Message.TableStatus(
            "app.items", true, "a row of app.items with key [7] cannot be read"));
    m.put(
        MessageType.CHANGE_PART,
        new Message.ChangePart(
            43, List.of(new Message.Change("app.items", Op.INSERT, key, null, row()))));
    if (m.size() != MessageType.values().length) {
      throw new IllegalStateException(
          "a message type has no sample: add one here (and its golden bytes)");
    }
    return m;
  }
}
