package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.Year;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The forms of a key part given as a Java value, against docs/TYPES.md's texts of each column type
 * on both databases ({@code JavaKeyValuesTest} checks them against real ones).
 */
class KeyFormsTest {

  private static List<Object> forms(Object part, String databaseType, ColumnType type) {
    return KeyForms.forms(part, new Column("k", databaseType, type));
  }

  @Test
  void aDateTimeIsTriedWithTrailingZerosDroppedThenWithTheDeclaredFractionDigits() {
    LocalDateTime halfPast = LocalDateTime.of(2026, 10, 25, 2, 30);
    assertThat(forms(halfPast, "timestamp(3)", ColumnType.TIMESTAMP))
        .containsExactly("2026-10-25T02:30:00", "2026-10-25T02:30:00.000");
    assertThat(forms(halfPast.withNano(100_000_000), "datetime(6)", ColumnType.TIMESTAMP))
        .containsExactly("2026-10-25T02:30:00.1", "2026-10-25T02:30:00.100000");
    assertThat(forms(halfPast, "datetime", ColumnType.TIMESTAMP))
        .containsExactly("2026-10-25T02:30:00");
    assertThat(forms(halfPast.withNano(1_000), "datetime(3)", ColumnType.TIMESTAMP))
        .as("more digits than the column holds: only the form with all of them")
        .containsExactly("2026-10-25T02:30:00.000001");
    assertThat(
            forms(
                java.sql.Timestamp.valueOf(halfPast.withNano(5)),
                "timestamp",
                ColumnType.TIMESTAMP))
        .containsExactly("2026-10-25T02:30:00.000000005");
    assertThat(forms(LocalTime.of(8, 15), "time(3)", ColumnType.TIME))
        .containsExactly("08:15:00", "08:15:00.000");
    assertThat(forms(java.sql.Time.valueOf(LocalTime.of(8, 15)), "time", ColumnType.TIME))
        .containsExactly("08:15:00");
  }

  @Test
  void aDateTimeTimeOrDecimalGivenAsTextInAnotherFormIsTriedInTheColumnsForms() {
    assertThat(forms("2026-10-25 02:30", "datetime(6)", ColumnType.TIMESTAMP))
        .containsExactly("2026-10-25T02:30:00", "2026-10-25T02:30:00.000000");
    assertThat(forms("0044-03-15 13:45:30.50 BC", "timestamp", ColumnType.TIMESTAMP))
        .containsExactly("0044-03-15T13:45:30.5 BC");
    assertThat(forms("-838:59:59", "time(3)", ColumnType.TIME))
        .containsExactly("-838:59:59", "-838:59:59.000");
    assertThat(forms("1.5", "decimal(12,3)", ColumnType.DECIMAL)).containsExactly("1.500", "1.5");
    assertThat(forms("tomorrow", "datetime", ColumnType.TIMESTAMP)).isEmpty();
    assertThat(forms("1e3", "numeric", ColumnType.DECIMAL)).isEmpty();
  }

  @Test
  void datesBeforeTheCommonEraAndInfinitiesAreAsPostgresqlPrintsThem() {
    assertThat(forms(LocalDate.of(-43, 3, 15), "date", ColumnType.DATE))
        .containsExactly("0044-03-15 BC");
    assertThat(forms(java.sql.Date.valueOf(LocalDate.of(2000, 2, 29)), "date", ColumnType.DATE))
        .containsExactly("2000-02-29");
    assertThat(forms(LocalDate.MAX, "date", ColumnType.DATE)).containsExactly("infinity");
    assertThat(forms(LocalDateTime.MIN, "timestamp", ColumnType.TIMESTAMP))
        .containsExactly("-infinity");
    assertThat(forms(OffsetDateTime.MAX, "timestamptz", ColumnType.TIMESTAMP_TZ))
        .containsExactly("infinity");
    assertThat(
            forms(
                LocalDateTime.of(-43, 3, 15, 13, 45, 30, 500_000_000),
                "timestamp",
                ColumnType.TIMESTAMP))
        .containsExactly("0044-03-15T13:45:30.5 BC");
  }

  @Test
  void anInstantIsTheSameInstantWhateverItsOffsetOrClass() {
    Instant at = Instant.parse("2026-03-29T01:30:00.120Z");
    for (Object given :
        List.of(
            at,
            at.atOffset(ZoneOffset.ofHours(2)),
            ZonedDateTime.ofInstant(at, java.time.ZoneId.of("Europe/Paris")),
            java.sql.Timestamp.from(at),
            java.util.Date.from(at))) {
      assertThat(forms(given, "timestamptz(6)", ColumnType.TIMESTAMP_TZ))
          .as("%s", given.getClass())
          .containsExactly("2026-03-29T01:30:00.120Z");
    }
  }

  @Test
  void aDecimalIsTriedWithTheColumnsScaleThenAsGivenThenWithoutTrailingZeros() {
    assertThat(forms(new BigDecimal("1.5"), "numeric(12,3)", ColumnType.DECIMAL))
        .containsExactly("1.500", "1.5");
    assertThat(forms(2L, "decimal(12,3)", ColumnType.DECIMAL)).containsExactly("2.000", "2");
    assertThat(forms(new BigDecimal("2.50"), "numeric", ColumnType.DECIMAL))
        .containsExactly("2.50", "2.5");
    assertThat(forms(new BigDecimal("1.5"), "numeric", ColumnType.DECIMAL))
        .as("an unconstrained numeric keeps the scale written: 1.50 is not among these")
        .containsExactly("1.5");
    assertThat(forms(new BigDecimal("0.00"), "numeric", ColumnType.DECIMAL))
        .containsExactly("0.00", "0");
    assertThat(forms(new BigDecimal("1.5"), "money", ColumnType.DECIMAL))
        .containsExactly("1.50", "1.5");
    assertThat(forms(new BigDecimal("1.0001"), "numeric(12,3)", ColumnType.DECIMAL))
        .as("more fraction digits than the column holds: no row can have it")
        .isEmpty();
  }

  @Test
  void bytesAreBase64AndAUuidIsItsSixteenBytesForABinaryColumn() {
    assertThat(forms(new byte[] {0, 1, 2}, "bytea", ColumnType.BINARY)).containsExactly("AAEC");
    assertThat(
            forms(
                ByteBuffer.wrap(new byte[] {9, 0, 1, 2}, 1, 3), "varbinary(8)", ColumnType.BINARY))
        .containsExactly("AAEC");
    assertThat(forms(new UUID(0, 1), "binary(16)", ColumnType.BINARY))
        .containsExactly("AAAAAAAAAAAAAAAAAAAAAQ==");
    assertThat(forms(new UUID(0, 1), "uuid", ColumnType.STRING)).as("its text as it is").isEmpty();
  }

  @Test
  void aYearIsItsNumberAndAWholeDecimalAnIntegersKey() {
    assertThat(forms(Year.of(2026), "year(4)", ColumnType.INTEGER)).containsExactly(2026L);
    assertThat(forms(java.sql.Date.valueOf("1901-01-01"), "year(4)", ColumnType.INTEGER))
        .as("what MariaDB's driver reads a YEAR as")
        .containsExactly(1901L);
    assertThat(forms(LocalDate.of(1901, 1, 1), "bigint", ColumnType.INTEGER)).isEmpty();
    assertThat(forms(new BigDecimal("42.00"), "bigint", ColumnType.INTEGER)).containsExactly(42L);
    assertThat(forms(new BigDecimal("42.5"), "bigint", ColumnType.INTEGER)).isEmpty();
  }

  @Test
  void alternativesCombineThePartsFormsWithoutThePlainKey() {
    List<Column> columns =
        List.of(
            new Column("day", "date", ColumnType.DATE),
            new Column("at", "time(3)", ColumnType.TIME),
            new Column("v", "int4", ColumnType.INTEGER));
    Object[] given = {LocalDate.of(2026, 1, 1), LocalTime.of(8, 15), 7};
    assertThat(KeyForms.alternatives(List.of("day", "at"), columns, given, "x"))
        .as("three parts for a key of two: refused elsewhere")
        .isEmpty();
    Object[] two = {LocalDate.of(2026, 1, 1), LocalTime.of(8, 15)};
    assertThat(
            KeyForms.alternatives(
                List.of("day", "at"), columns, two, List.of("2026-01-01", "08:15")))
        .containsExactly(List.of("2026-01-01", "08:15:00"), List.of("2026-01-01", "08:15:00.000"));
    assertThat(KeyForms.alternatives(List.of("v"), columns, 7, 7L)).isEmpty();
    assertThat(KeyForms.alternatives(List.of("day"), List.of(), LocalDate.MAX, "x"))
        .as("columns not known yet")
        .isEmpty();
  }

  @Test
  void aDateTimeOfAnotherKindThanItsColumnsIsRefusedWithTheClassToGive() {
    Column instant = new Column("at", "timestamptz", ColumnType.TIMESTAMP_TZ);
    assertThat(KeyForms.refusal(LocalDateTime.of(2026, 1, 1, 0, 0), instant))
        .isEqualTo("give an Instant, an OffsetDateTime or a ZonedDateTime");
    assertThat(
            KeyForms.refusal(Instant.EPOCH, new Column("at", "datetime(6)", ColumnType.TIMESTAMP)))
        .isEqualTo("give a LocalDateTime");
    assertThat(KeyForms.refusal(new byte[1], new Column("k", "text", ColumnType.STRING)))
        .isEqualTo("give its value as docs/TYPES.md shows it");
    assertThat(
            KeyForms.refusal(LocalDate.of(2026, 1, 1), new Column("k", "text", ColumnType.STRING)))
        .as("a date may be the text of a text column")
        .isNull();
    assertThat(KeyForms.refusal(Instant.EPOCH, instant)).isNull();
    assertThat(KeyForms.refusal("1970-01-01T00:00:00Z", instant)).as("text as it is").isNull();
  }
}
