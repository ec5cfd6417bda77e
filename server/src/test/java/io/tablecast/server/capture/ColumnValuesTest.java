package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Date-times as PostgreSQL prints them, in JSON or as text output, become the forms of
 * docs/TYPES.md: the instant of a {@code timestamptz} whatever its year, a {@code timestamp} with a
 * {@code T}.
 */
class ColumnValuesTest {
  private static final ColumnValues VALUES = new ColumnValues(RowNormalizerStreamingTest.dialect());

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "2024-02-29T13:45:30.5+02:00     | 2024-02-29T11:45:30.500Z",
        "2024-02-29 13:45:30.5+02        | 2024-02-29T11:45:30.500Z",
        "1850-01-01 05:53:28+05:53:28    | 1850-01-01T00:00:00Z",
        "0044-03-15T13:45:30.5+00:00 BC  | -0043-03-15T13:45:30.500Z",
        "0001-01-01 00:00:00+00 BC       | 0000-01-01T00:00:00Z",
        "4713-11-24 00:00:00+00 BC       | -4712-11-24T00:00:00Z",
        "294276-12-31 23:59:59.999999+00 | +294276-12-31T23:59:59.999999Z",
        "10000-01-01T00:00:00+00:00      | +10000-01-01T00:00:00Z",
        "infinity                        | infinity",
      })
  void aTimestamptzIsItsInstantWhateverItsYear(String printed, String form) {
    assertThat(value(ColumnKind.TIMESTAMP_TZ, "timestamptz", printed).asText()).isEqualTo(form);
  }

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

  private static com.fasterxml.jackson.databind.JsonNode value(
      ColumnKind kind, String type, String printed) {
    return VALUES.value(new ColumnInfo("c", type, kind), new TextNode(printed));
  }
}
