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
  void dateAndTimeKeysSortInTimeOrderYearsBcAndInfinityIncluded() {
    List<Column> day = List.of(new Column("day", "date", ColumnType.DATE));
    assertThat(sorted(List.of("day"), day, "2024-02-29", "infinity", "0044-03-15 BC", "0001-01-01"))
        .containsExactly("0044-03-15 BC", "0001-01-01", "2024-02-29", "infinity");
    List<Column> clock = List.of(new Column("clock", "time(3)", ColumnType.TIME));
    assertThat(sorted(List.of("clock"), clock, "08:15:00.000", "-838:59:59.000", "-00:00:01.000"))
        .containsExactly("-838:59:59.000", "-00:00:01.000", "08:15:00.000");
    List<Column> at = List.of(new Column("at", "timestamptz", ColumnType.TIMESTAMP_TZ));
    assertThat(
            sorted(
                List.of("at"),
                at,
                "2024-02-29T11:45:30Z",
                "2024-02-29T11:45:30.500Z",
                "-0043-03-15T12:00:00Z"))
        .containsExactly(
            "-0043-03-15T12:00:00Z", "2024-02-29T11:45:30Z", "2024-02-29T11:45:30.500Z");
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
