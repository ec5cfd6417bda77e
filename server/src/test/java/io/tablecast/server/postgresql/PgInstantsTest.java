package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A {@code timestamptz} as PostgreSQL prints it, in JSON or as text output, is the instant of
 * docs/TYPES.md whatever its year and offset.
 */
class PgInstantsTest {

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
    assertThat(PgInstants.instant(printed)).isEqualTo(form);
  }
}
