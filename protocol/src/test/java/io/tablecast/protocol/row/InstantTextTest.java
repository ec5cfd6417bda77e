package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link InstantText} reads and prints what {@code java.time} does, on random instants. */
class InstantTextTest {
  private static final long YEAR_0 = -62_167_219_200L; // 0000-01-01T00:00:00Z
  private static final long YEAR_10000 = 253_402_300_800L;

  @Test
  void printsWhatInstantToStringPrints() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 1_000_000; i++) {
      long second = random.nextLong(YEAR_0 - 86_400L * 800, YEAR_10000 + 86_400L * 800);
      int nanos =
          switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1_000;
            default -> random.nextInt(1_000_000_000);
          };
      Instant instant = Instant.ofEpochSecond(second, nanos);
      String printed = instant.toString();
      assertThat(InstantText.print(second, nanos)).isEqualTo(printed);
      if (instant.atOffset(ZoneOffset.UTC).getYear() >= 0
          && instant.atOffset(ZoneOffset.UTC).getYear() <= 9999) {
        assertThat(InstantText.parsePrinted(printed)).isEqualTo(instant);
      }
    }
  }

  @Test
  void readsWhatOffsetDateTimeReadsInTheFormsPostgresqlPrints() {
    SplittableRandom random = new SplittableRandom(7);
    DateTimeFormatter iso = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
    for (int i = 0; i < 200_000; i++) {
      long second = random.nextLong(YEAR_0 + 86_400L, YEAR_10000 - 86_400L);
      int micros = random.nextInt(3) == 0 ? 0 : random.nextInt(1_000_000);
      int offset =
          switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(-12, 15) * 3600;
            case 2 -> random.nextInt(-12 * 60, 14 * 60) * 60;
            default -> random.nextInt(-18 * 3600 + 1, 18 * 3600);
          };
      OffsetDateTime t =
          Instant.ofEpochSecond(second, micros * 1000L).atOffset(ZoneOffset.ofTotalSeconds(offset));
      String json = t.format(iso); // to_jsonb's form
      String text = pgText(json); // the text output's
      if (t.getYear() > 9999 || t.getYear() < 0) {
        continue;
      }
      assertThat(InstantText.parse(json)).as(json).isEqualTo(t.toInstant());
      assertThat(InstantText.parse(text)).as(text).isEqualTo(t.toInstant());
    }
  }

  /** ISO 8601 as PostgreSQL's text output writes it: a space, {@code +HH} for whole hours. */
  private static String pgText(String iso) {
    String s = iso.replace('T', ' ');
    return s.endsWith(":00")
            && s.length() - s.lastIndexOf(':') == 3
            && s.charAt(s.length() - 6) != ':'
        ? s.substring(0, s.length() - 3)
        : s.endsWith("Z") ? s.substring(0, s.length() - 1) + "+00" : s;
  }

  /** Texts of instants that {@link InstantText#print} would print otherwise. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "2024-02-29T11:45:30.000Z",
        "2024-02-29T11:45:30.500000Z",
        "2024-02-29T11:45:30.1234Z",
        "2024-02-29T11:45:30.123456000Z",
        "2024-02-29 11:45:30Z",
        "2024-02-29T11:45:30+00:00",
        "2024-02-29T11:45:30+00",
      })
  void parsePrintedRefusesOtherFormsOfAnInstant(String text) {
    assertThat(InstantText.parse(text)).isNotNull();
    assertThat(InstantText.parsePrinted(text)).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "infinity",
        "0044-03-15T13:45:30.5+00:00 BC",
        "294276-12-31 23:59:59.999999+00",
        "2024-02-30 00:00:00+00",
        "2024-02-29 24:00:00+00",
        "2024-02-29 13:45:30.+00",
        "2024-02-29 13:45:30.1234567890+00",
        "2024-02-29 13:45:30+0",
        "2024-02-29 13:45:30+00:",
        "2024-02-29 13:45:30+00:00:00:00",
        "2024-02-29 13:45:30+19",
        "2024-02-29 13:45:30",
        "2024-02-29 13:45:30Zx",
        "2024-02-29x13:45:30Z",
      })
  void refusesWhatItDoesNotRead(String text) {
    assertThat(InstantText.parse(text)).isNull();
  }
}
