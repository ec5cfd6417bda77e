package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowJsonTest {

  private static List<Object> sorted(List<String> pk, List<Column> columns, Object... keys) {
    List<Object> out = new ArrayList<>(List.of(keys));
    out.sort(RowJson.keyOrder(pk, columns));
    return out;
  }

  @Test
  void decimalKeysSortByValueNotAsText() {
    List<Column> cols = List.of(new Column("price", "decimal(10,2)", ColumnType.DECIMAL));
    // mirrors hold decimals as strings: as text this would be -1.00, 10.00, 9.00
    assertThat(sorted(List.of("price"), cols, "10.00", "9.00", "-1.00", "0.50"))
        .containsExactly("-1.00", "0.50", "9.00", "10.00");
  }

  @Test
  void integerKeysSortNumericallyOverTheWholeUnsignedRange() {
    List<Column> cols = List.of(new Column("id", "bigint unsigned", ColumnType.INTEGER));
    BigInteger max = new BigInteger("18446744073709551615");
    assertThat(sorted(List.of("id"), cols, max, 10L, -1L, 9L)).containsExactly(-1L, 9L, 10L, max);
  }

  @Test
  void stringKeysSortAsTextEvenWhenTheyLookNumeric() {
    List<Column> cols = List.of(new Column("code", "varchar(10)", ColumnType.STRING));
    assertThat(sorted(List.of("code"), cols, "9", "10", "-1", "a"))
        .containsExactly("-1", "10", "9", "a");
  }

  @Test
  void compositeKeysSortPartByPartEachByItsKind() {
    List<Column> cols =
        List.of(
            new Column("amount", "numeric(10,2)", ColumnType.DECIMAL),
            new Column("region", "text", ColumnType.STRING),
            new Column("other", "text", ColumnType.STRING));
    assertThat(
            sorted(
                List.of("amount", "region"),
                cols,
                List.of("10.00", "a"),
                List.of("9.00", "b"),
                List.of("9.00", "a"),
                List.of("-1", "z")))
        .containsExactly(
            List.of("-1", "z"), List.of("9.00", "a"), List.of("9.00", "b"), List.of("10.00", "a"));
  }

  @Test
  void keysOfColumnsWithoutALayoutFallBackToNumbersThenText() {
    assertThat(sorted(List.of("id"), List.of(), "b", 10L, 9L, "a"))
        .containsExactly(9L, 10L, "a", "b");
  }
}
