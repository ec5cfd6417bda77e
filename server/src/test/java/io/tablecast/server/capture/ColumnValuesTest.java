package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.math.BigDecimal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Date-times as the databases print them become the forms of docs/TYPES.md: a {@code timestamp}
 * with a {@code T} whatever its year (PostgreSQL's text output, MySQL's DATETIME); MySQL's {@code
 * UNIX_TIMESTAMP} numbers the instant. (PostgreSQL's instants: {@code PgInstantsTest}.)
 */
class ColumnValuesTest {
  private static final ColumnValues VALUES = new ColumnValues(RowNormalizerStreamingTest.dialect());

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "2024-02-29 13:45:30.5        | 2024-02-29T13:45:30.5",
        "2024-02-29T13:45:30.5        | 2024-02-29T13:45:30.5",
        "294276-12-31 23:59:59.999999 | 294276-12-31T23:59:59.999999",
        "0044-03-15 13:45:30.5 BC     | 0044-03-15T13:45:30.5 BC",
        "0000-00-00 00:00:00          | 0000-00-00T00:00:00",
        "-infinity                    | -infinity",
      })
  void aTimestampHasItsT(String printed, String form) {
    assertThat(value(ColumnKind.TIMESTAMP, "timestamp", printed).asText()).isEqualTo(form);
  }

  private static JsonNode value(ColumnKind kind, String type, String printed) {
    return VALUES.value(new ColumnInfo("c", type, kind), new TextNode(printed));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "1709214330.500000 | 2024-02-29T13:45:30.500Z",
        "1709214330        | 2024-02-29T13:45:30Z",
        "0                 | 1970-01-01T00:00:00Z",
      })
  void aMysqlTimestampIsTheInstantOfItsNumber(String seconds, String form) {
    JsonNode number = DecimalNode.valueOf(new BigDecimal(seconds));
    assertThat(
            VALUES
                .value(new ColumnInfo("c", "timestamp", ColumnKind.TIMESTAMP_TZ), number)
                .asText())
        .isEqualTo(form);
  }
}
