package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

/** Every form of docs/TYPES.md's date and time kinds, and the forms people write, as values. */
class TemporalValuesTest {

  @Test
  void datesInEveryFormEitherDatabasePrints() {
    assertThat(TemporalValues.date("2024-02-29")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(TemporalValues.date("0044-03-15 BC")).isEqualTo(LocalDate.of(-43, 3, 15));
    assertThat(TemporalValues.date("0001-01-01 BC")).isEqualTo(LocalDate.of(0, 1, 1));
    assertThat(TemporalValues.date("294276-12-31")).isEqualTo(LocalDate.of(294276, 12, 31));
    assertThat(TemporalValues.date("infinity")).isEqualTo(LocalDate.MAX);
    assertThat(TemporalValues.date("-infinity")).isEqualTo(LocalDate.MIN);
    assertThat(TemporalValues.date("2024-02-30")).isNull();
    assertThat(TemporalValues.date("0000-00-00")).as("MySQL's zero date").isNull();
    assertThat(TemporalValues.date("99999999999999999999-01-01")).isNull();
  }

  @Test
  void dateTimesWithATOrASpaceWithOrWithoutSeconds() {
    LocalDateTime t = LocalDateTime.of(2024, 2, 29, 13, 45, 30, 500_000_000);
    assertThat(TemporalValues.dateTime("2024-02-29T13:45:30.5")).isEqualTo(t);
    assertThat(TemporalValues.dateTime("2024-02-29T13:45:30.500000")).isEqualTo(t);
    assertThat(TemporalValues.dateTime("2024-02-29 13:45:30.5")).isEqualTo(t);
    assertThat(TemporalValues.dateTime("2024-02-29 13:45")).isEqualTo(t.withSecond(0).withNano(0));
    assertThat(TemporalValues.dateTime("0044-03-15T13:45:30.5 BC"))
        .isEqualTo(LocalDateTime.of(-43, 3, 15, 13, 45, 30, 500_000_000));
    assertThat(TemporalValues.dateTime("12024-01-01T00:00:00"))
        .isEqualTo(LocalDateTime.of(12024, 1, 1, 0, 0));
    assertThat(TemporalValues.dateTime("infinity")).isEqualTo(LocalDateTime.MAX);
    assertThat(TemporalValues.dateTime("2024-02-29T24:00:00")).isNull();
  }

  @Test
  void timesBelowZeroAndPastADay() {
    assertThat(TemporalValues.time("13:45:30.5")).isEqualTo(Duration.parse("PT13H45M30.5S"));
    assertThat(TemporalValues.time("08:15")).isEqualTo(Duration.ofMinutes(495));
    assertThat(TemporalValues.time("-838:59:59.000")).isEqualTo(Duration.parse("-PT838H59M59S"));
    assertThat(TemporalValues.time("24:00:00")).isEqualTo(Duration.ofHours(24));
    assertThat(TemporalValues.time("12:60:00")).isNull();
  }

  @Test
  void instantsAsPrintedOrWithAnOffset() {
    Instant i = Instant.parse("2024-02-29T11:45:30.500Z");
    assertThat(TemporalValues.instant("2024-02-29T11:45:30.500Z")).isEqualTo(i);
    assertThat(TemporalValues.instant("2024-02-29 12:45:30.5+01")).isEqualTo(i);
    assertThat(TemporalValues.instant("-0043-03-15T12:00:00Z"))
        .isEqualTo(Instant.parse("-0043-03-15T12:00:00Z"));
    assertThat(TemporalValues.instant("+294276-12-31T23:59:59Z"))
        .isEqualTo(Instant.parse("+294276-12-31T23:59:59Z"));
    assertThat(TemporalValues.instant("infinity")).isEqualTo(Instant.MAX);
    assertThat(TemporalValues.instant("2024-02-29T11:45:30")).as("no zone").isNull();
  }
}
