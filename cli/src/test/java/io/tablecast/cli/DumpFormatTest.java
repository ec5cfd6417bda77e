package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The three formats of {@code tablecast dump}, pinned, with values that need quoting. */
class DumpFormatTest {

  private static final List<Column> COLUMNS =
      List.of(
          new Column("id", "int", ColumnType.INTEGER),
          new Column("name", "varchar(40)", ColumnType.STRING),
          new Column("price", "decimal(8,2)", ColumnType.DECIMAL),
          new Column("doc", "jsonb", ColumnType.JSON),
          new Column("ok", "boolean", ColumnType.BOOLEAN));

  private static Map<String, Object> row(Object... values) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      m.put(COLUMNS.get(i).name(), values[i]);
    }
    return m;
  }

  private static final List<Map<String, Object>> ROWS =
      List.of(
          row(1, "plain", "1.10", Map.of("a", List.of(1, 2)), true),
          row(2, "comma, \"quote\"", null, null, false),
          row(3, "", "-0.50", "text", null),
          row(10, "two\nlines\r\tand \\ back", "100.00", null, true),
          row(11, "café ☕", "7.25", null, false));

  @Test
  void jsonPrintsOneObjectPerRowWithEveryColumn() {
    assertThat(DumpFormat.JSON.lines(COLUMNS, ROWS))
        .containsExactly(
            "{\"id\":1,\"name\":\"plain\",\"price\":\"1.10\",\"doc\":{\"a\":[1,2]},\"ok\":true}",
            "{\"id\":2,\"name\":\"comma, \\\"quote\\\"\",\"price\":null,\"doc\":null,\"ok\":false}",
            "{\"id\":3,\"name\":\"\",\"price\":\"-0.50\",\"doc\":\"text\",\"ok\":null}",
            "{\"id\":10,\"name\":\"two\\nlines\\r\\tand \\\\ back\",\"price\":\"100.00\","
                + "\"doc\":null,\"ok\":true}",
            "{\"id\":11,\"name\":\"café ☕\",\"price\":\"7.25\",\"doc\":null,\"ok\":false}");
  }

  @Test
  void csvQuotesWhatNeedsItDoublesQuotesAndTellsNullFromEmpty() {
    assertThat(String.join("\n", DumpFormat.CSV.lines(COLUMNS, ROWS)))
        .isEqualTo(
            String.join(
                "\n",
                "id,name,price,doc,ok",
                "1,plain,1.10,\"{\"\"a\"\":[1,2]}\",true",
                "2,\"comma, \"\"quote\"\"\",,,false",
                "3,\"\",-0.50,text,",
                "10,\"two\nlines\r\tand \\ back\",100.00,,true",
                "11,café ☕,7.25,,false"));
  }

  @Test
  void csvQuotesAHeaderThatNeedsIt() {
    List<Column> odd = List.of(new Column("a,b", "int", ColumnType.INTEGER));
    assertThat(DumpFormat.CSV.lines(odd, List.of(Map.of("a,b", 1))))
        .containsExactly("\"a,b\"", "1");
  }

  @Test
  void tableAlignsColumnsNumbersRightAndEscapesControlCharacters() {
    assertThat(DumpFormat.TABLE.lines(COLUMNS, ROWS))
        .containsExactly(
            "id | name                      |  price | doc         | ok",
            "---+---------------------------+--------+-------------+------",
            " 1 | plain                     |   1.10 | {\"a\":[1,2]} | true",
            " 2 | comma, \"quote\"            |        |             | false",
            " 3 |                           |  -0.50 | text        |",
            "10 | two\\nlines\\r\\tand \\\\ back | 100.00 |             | true",
            "11 | café ☕                    |   7.25 |             | false",
            "(5 rows)");
  }

  @Test
  void anEmptyTableIsAHeaderAndNoRows() {
    assertThat(DumpFormat.TABLE.lines(COLUMNS.subList(0, 2), List.of()))
        .containsExactly("id | name", "---+-----", "(0 rows)");
    assertThat(DumpFormat.CSV.lines(COLUMNS.subList(0, 2), List.of())).containsExactly("id,name");
  }
}
