package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.MessageCodec;
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
}
