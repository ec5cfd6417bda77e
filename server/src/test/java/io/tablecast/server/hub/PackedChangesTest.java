package io.tablecast.server.hub;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PackedChangesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final RowForm ITEMS = items();

  /** The same columns, another table version (after an ALTER TABLE, say): another layout. */
  private static final RowForm ITEMS_V2 = items();

  private static final RowForm PAIRS =
      new RowForm(
          List.of(
              new ColumnInfo("a", "text", ColumnKind.STRING),
              new ColumnInfo("b", "int", ColumnKind.INTEGER),
              new ColumnInfo("note", "text", ColumnKind.STRING)),
          List.of("a", "b"));

  @Test
  void everyKindOfChangeComesBackWithItsBytesLayoutAndTable() throws Exception {
    List<Message.Change> changes = new ArrayList<>();
    changes.add(
        change(
            "public.items",
            ITEMS,
            Op.INSERT,
            null,
            row(ITEMS, "{\"id\":1,\"name\":\"a\",\"price\":\"1.50\"}")));
    changes.add(
        change(
            "public.items",
            ITEMS,
            Op.UPDATE,
            row(ITEMS, "{\"id\":1,\"name\":\"a\",\"price\":\"1.50\"}"),
            row(ITEMS, "{\"id\":1,\"name\":\"" + "é".repeat(300) + "\",\"price\":null}")));
    changes.add(
        change(
            "public.pairs",
            PAIRS,
            Op.DELETE,
            row(PAIRS, "{\"a\":\"x\",\"b\":-7,\"note\":null}"),
            null));
    changes.add(
        change(
            "public.items",
            ITEMS_V2,
            Op.INSERT,
            null,
            row(ITEMS_V2, "{\"id\":2,\"name\":\"\",\"price\":\"0\"}")));
    ObjectNode tree = (ObjectNode) JSON.readTree("{\"id\":3}");
    Message.Change asTree =
        new Message.Change(
            "public.other", Op.INSERT, JsonNodeFactory.instance.arrayNode().add(3), null, tree);
    changes.add(asTree);

    PackedChanges packed = PackedChanges.of(changes, null);
    List<Message.Change> back = packed.changes();

    assertThat(packed.size()).isEqualTo(5);
    assertThat(back).hasSize(5);
    for (int i = 0; i < 4; i++) {
      Message.Change was = changes.get(i);
      Message.Change is = back.get(i);
      assertThat(is.table()).isEqualTo(was.table());
      assertThat(is.op()).isEqualTo(was.op());
      assertThat(((PackedKey) is.key()).bytes()).isEqualTo(((PackedKey) was.key()).bytes());
      assertThat(((PackedKey) is.key()).form()).isSameAs(((PackedKey) was.key()).form());
      assertSameRow(is.before(), was.before());
      assertSameRow(is.after(), was.after());
      assertThat(is.after() == null ? is.before() : is.after())
          .as("reads as the same JSON")
          .isEqualTo(was.after() == null ? was.before() : was.after());
    }
    assertThat(back.get(4)).as("a change not in a row form is kept as it is").isSameAs(asTree);
    assertThat(packed.changes()).as("made anew at each call").isNotSameAs(back).isEqualTo(back);
  }

  @Test
  void aBatchKeepsFarFewerBytesThanItsChangesAsObjects() throws Exception {
    List<Message.Change> changes = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String before = "{\"id\":" + i + ",\"name\":\"row-" + i + "\",\"price\":\"" + i + ".99\"}";
      String after =
          "{\"id\":" + i + ",\"name\":\"row-" + i + "\",\"price\":\"" + (i + 1) + ".99\"}";
      changes.add(change("public.items", ITEMS, Op.UPDATE, row(ITEMS, before), row(ITEMS, after)));
    }
    long rowBytes = 0;
    for (Message.Change c : changes) {
      rowBytes +=
          ((PackedKey) c.key()).bytes().length
              + ((PackedRow) c.before()).bytes().length
              + ((PackedRow) c.after()).bytes().length;
    }
    PackedChanges packed = PackedChanges.of(changes, null);
    // each change: its bytes plus a few length bytes, the batch: one array and two small ones
    assertThat(packed.retainedBytes()).isLessThan(rowBytes + 6L * changes.size() + 200);
  }

  @Test
  void aBatchOfTheSameTablesSharesTheTableAndLayoutArraysOfTheOneBefore() throws Exception {
    List<Message.Change> one =
        List.of(
            change(
                "public.items",
                ITEMS,
                Op.DELETE,
                row(ITEMS, "{\"id\":1,\"name\":\"a\",\"price\":\"1\"}"),
                null));
    List<Message.Change> two =
        List.of(
            change(
                "public.items",
                ITEMS,
                Op.DELETE,
                row(ITEMS, "{\"id\":2,\"name\":\"b\",\"price\":\"2\"}"),
                null));
    List<Message.Change> other =
        List.of(
            change(
                "public.items",
                ITEMS_V2,
                Op.DELETE,
                row(ITEMS_V2, "{\"id\":2,\"name\":\"b\",\"price\":\"2\"}"),
                null));
    PackedChanges first = PackedChanges.of(one, null);
    PackedChanges second = PackedChanges.of(two, first);
    PackedChanges third = PackedChanges.of(other, second);

    assertThat(((PackedKey) second.changes().get(0).key()).form()).isSameAs(ITEMS);
    assertThat(((PackedKey) third.changes().get(0).key()).form())
        .as("an equal layout of another table version is not taken for this one")
        .isSameAs(ITEMS_V2);
    assertThat(second.changes().get(0).table()).isSameAs(first.changes().get(0).table());
  }

  @Test
  void anEmptyBatchIsEmpty() {
    PackedChanges packed = PackedChanges.of(List.of(), null);
    assertThat(packed.size()).isZero();
    assertThat(packed.changes()).isEmpty();
  }

  private static RowForm items() {
    return new RowForm(
        List.of(
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("name", "text", ColumnKind.STRING),
            new ColumnInfo("price", "numeric(10,2)", ColumnKind.DECIMAL)),
        List.of("id"));
  }

  private static Message.Change change(
      String table, RowForm form, Op op, byte[] before, byte[] after) {
    byte[] key = form.keyOf(after != null ? after : before);
    return new Message.Change(
        table,
        op,
        PackedKey.of(form, key),
        before == null ? null : PackedRow.of(form, before),
        after == null ? null : PackedRow.of(form, after));
  }

  private static byte[] row(RowForm form, String json) throws Exception {
    JsonNode tree = JSON.readTree(json);
    return form.encode(tree);
  }

  private static void assertSameRow(ObjectNode is, ObjectNode was) {
    if (was == null) {
      assertThat(is).isNull();
      return;
    }
    assertThat(((PackedRow) is).bytes()).isEqualTo(((PackedRow) was).bytes());
    assertThat(((PackedRow) is).form()).isSameAs(((PackedRow) was).form());
  }
}
