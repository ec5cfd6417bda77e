package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowKeysTest {

  private static ArrayNode array(String json) throws Exception {
    return (ArrayNode) MessageCodec.jsonMapper().readTree(json);
  }

  @Test
  void wireAndUserKeysNormalizeAlike() throws Exception {
    assertThat(RowKeys.fromKeyArray(array("[42]")))
        .isEqualTo(42L)
        .isEqualTo(RowKeys.fromUser(42, 1))
        .isEqualTo(RowKeys.fromUser(42L, 1))
        .isEqualTo(RowKeys.fromUser(BigInteger.valueOf(42), 1));
    assertThat(RowKeys.fromKeyArray(array("[18446744073709551615]")))
        .isEqualTo(new BigInteger("18446744073709551615"))
        .isEqualTo(RowKeys.fromUser(new BigInteger("18446744073709551615"), 1));
    assertThat(RowKeys.fromKeyArray(array("[\"a\"]"))).isEqualTo("a");
    assertThat(RowKeys.fromKeyArray(array("[true]"))).isEqualTo(true);
    assertThat(RowKeys.fromKeyArray(array("[1.5]")))
        .isEqualTo("1.5")
        .isEqualTo(RowKeys.fromUser(new java.math.BigDecimal("1.5"), 1));
    // a decimal key is its text as the database prints it, never in scientific notation
    // (BigDecimal.toString() wrote 1E+3 and 1.2E-7, which no key is)
    assertThat(RowKeys.fromKeyArray(array("[\"1000\"]")))
        .isEqualTo(RowKeys.fromUser(new java.math.BigDecimal("1000").stripTrailingZeros(), 1));
    assertThat(RowKeys.fromUser(new java.math.BigDecimal("0.00000012"), 1)).isEqualTo("0.00000012");
  }

  @Test
  void compositeKeysAreListsInKeyOrder() throws Exception {
    Object wire = RowKeys.fromKeyArray(array("[7, \"x\"]"));
    assertThat(wire)
        .isEqualTo(List.of(7L, "x"))
        .isEqualTo(RowKeys.fromUser(7, new Object[] {"x"}))
        .isEqualTo(RowKeys.fromUser(List.of(7, "x"), 2));
    ObjectNode row =
        (ObjectNode) MessageCodec.jsonMapper().readTree("{\"b\":\"x\",\"a\":7,\"c\":1}");
    assertThat(RowKeys.fromRow(row, List.of("a", "b"))).isEqualTo(wire);
  }

  @Test
  void aRowInTheRowFormIsKeyedFromItsBytesWithoutBuildingItsTree() throws Exception {
    List<ColumnInfo> columns =
        List.of(
            new ColumnInfo("name", "text", ColumnKind.STRING),
            new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
            new ColumnInfo("big", "numeric", ColumnKind.INTEGER),
            new ColumnInfo("ok", "boolean", ColumnKind.BOOLEAN),
            new ColumnInfo("ratio", "double", ColumnKind.FLOAT));
    ObjectNode tree =
        (ObjectNode)
            MessageCodec.jsonMapper()
                .readTree("{\"name\":\"x\",\"id\":7,\"big\":18446744073709551615,\"ok\":true}");
    tree.put("ratio", 1.5d); // a FLOAT as the server reads it: a double
    for (List<String> key :
        List.of(
            List.of("id"),
            List.of("name"),
            List.of("big"),
            List.of("id", "name", "ok"),
            List.of("big", "id"))) {
      RowForm form = new RowForm(columns, key);
      PackedRow packed = PackedRow.of(form, form.encode(tree));
      assertThat(RowKeys.fromRow(packed, key))
          .as("key %s", key)
          .isEqualTo(RowKeys.fromRow(tree, key));
      assertThat(RowKeys.fromRowOrNull(packed, key)).isEqualTo(RowKeys.fromRow(tree, key));
      assertThat(packed.decoded()).as("tree built for key %s", key).isFalse();
    }
    RowForm byRatio = new RowForm(columns, List.of("ratio")); // a float part: its JSON text
    for (List<String> key :
        List.of(
            List.of("id"),
            List.of("name"),
            List.of("big"),
            List.of("ratio"),
            List.of("ok", "id"),
            List.of("name", "ratio", "big"))) {
      RowForm form = new RowForm(columns, key);
      byte[] row = form.encode(tree);
      PackedKey changeKey = PackedKey.of(form, form.keyOf(row));
      Object expected = RowKeys.fromKeyArray(PackedKey.of(form, form.keyOf(row)));
      assertThat(RowKeys.ofChange(changeKey, PackedRow.of(form, row)))
          .as("change of key %s", key)
          .isEqualTo(expected);
      assertThat(RowKeys.ofChange(changeKey, null)).as("delete of key %s", key).isEqualTo(expected);
      assertThat(RowKeys.ofChange(PackedKey.of(form, form.keyOf(row)), PackedRow.of(form, row)))
          .as("key %s", key)
          .isEqualTo(expected);
    }
    PackedKey unread = PackedKey.of(byRatio, byRatio.keyOf(byRatio.encode(tree)));
    RowForm byId = new RowForm(columns, List.of("id"));
    PackedKey idKey = PackedKey.of(byId, byId.keyOf(byId.encode(tree)));
    RowKeys.ofChange(idKey, PackedRow.of(byId, byId.encode(tree)));
    assertThat(idKey.decoded()).as("an integer key read from the row's bytes").isFalse();
    assertThat(unread.decoded()).isFalse();
    assertThat(RowKeys.fromRow(PackedRow.of(byRatio, byRatio.encode(tree)), List.of("ratio")))
        .isEqualTo("1.5");
    assertThat(RowKeys.fromRowOrNull(PackedRow.of(byRatio, byRatio.encode(tree)), List.of("no")))
        .isNull();
  }
}
