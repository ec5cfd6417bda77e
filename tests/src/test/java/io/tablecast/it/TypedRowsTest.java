package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Rows map to user records with full fidelity, from the snapshot and from events, on both database
 * families (the JSON forms themselves are pinned per type in the server's TypeFidelityTest; this
 * checks the client's typed mapping of them end to end).
 */
class TypedRowsTest {

  record Typed(
      long id,
      BigDecimal amount,
      double ratio,
      boolean flag,
      String label,
      byte[] payload,
      LocalDate day,
      LocalTime clock,
      LocalDateTime stamp,
      Instant instant,
      JsonNode doc,
      String nothing) {}

  /**
   * The columns a record of the common component types reads: built from the row's bytes without
   * Jackson's tree ({@code DirectRecordMapping}), where {@link Typed}'s byte[] and JsonNode
   * components send its rows through Jackson; both must read the same values.
   */
  record Plain(
      long id,
      BigDecimal amount,
      double ratio,
      boolean flag,
      String label,
      LocalDate day,
      LocalTime clock,
      LocalDateTime stamp,
      Instant instant,
      String nothing) {
    static Plain of(Typed t) {
      return new Plain(
          t.id(),
          t.amount(),
          t.ratio(),
          t.flag(),
          t.label(),
          t.day(),
          t.clock(),
          t.stamp(),
          t.instant(),
          t.nothing());
    }
  }

  private static String createTable(Kind kind) {
    return kind == Kind.MYSQL
        ? "CREATE TABLE typed (id bigint PRIMARY KEY, amount decimal(12,4), ratio double, flag boolean, "
            + "label varchar(40), payload varbinary(16), day date, clock time(6), stamp datetime(6), "
            + "instant timestamp(6) NULL, doc json, nothing varchar(5))"
        : "CREATE TABLE typed (id bigint PRIMARY KEY, amount numeric(12,4), ratio double precision, flag boolean, "
            + "label varchar(40), payload bytea, day date, clock time(6), stamp timestamp(6), "
            + "instant timestamptz(6), doc jsonb, nothing varchar(5))";
  }

  /** Statements inserting the sample row with the given id (MySQL: in a UTC session). */
  private static List<String> insert(Kind kind, int id) {
    if (kind == Kind.MYSQL) {
      return List.of(
          "SET time_zone = '+00:00'",
          "INSERT INTO typed VALUES ("
              + id
              + ", 12.3400, 0.25, true, 'Zoë 😀', X'000102', '2024-02-29', "
              + "'13:45:30.123456', '2024-02-29 13:45:30.123456', '2024-02-29 13:45:30.123456', "
              + "'{\"a\":[1,2.50]}', NULL)");
    }
    return List.of(
        "INSERT INTO typed VALUES ("
            + id
            + ", 12.3400, 0.25, true, 'Zoë 😀', '\\x000102', "
            + "'2024-02-29', '13:45:30.123456', '2024-02-29 13:45:30.123456', '2024-02-29 15:45:30.123456+02', "
            + "'{\"a\":[1,2.50]}', NULL)");
  }

  private static List<String> ddl(Kind kind) {
    List<String> all = new java.util.ArrayList<>();
    all.add(createTable(kind));
    all.addAll(insert(kind, 1));
    return all;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rowsMapToRecordsWithFullFidelityFromSnapshotAndEvents(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "typed", ddl(kind), "typed")) {
      TableMirror<Typed> m = p.client("typed").mirror(p.db.table("typed"), Typed.class);
      TableMirror<Plain> plain = p.client("plain").mirror(p.db.table("typed"), Plain.class);
      assertThat(m.awaitReady(Pipeline.READY)).isTrue();
      assertThat(plain.awaitReady(Pipeline.READY)).isTrue();
      assertFirstRow(m.get(1));
      assertThat(plain.get(1)).isEqualTo(Plain.of(m.get(1)));

      // the same values written through the triggers arrive identical
      List<String> moveToTwo = new java.util.ArrayList<>(List.of("DELETE FROM typed WHERE id = 1"));
      moveToTwo.addAll(insert(kind, 2));
      p.transaction(moveToTwo.toArray(new String[0]));
      p.transaction(insert(kind, 1).toArray(new String[0]));
      await().atMost(Duration.ofSeconds(20)).until(() -> m.get(2) != null && m.get(1) != null);
      assertFirstRow(m.get(1));
      Typed second = m.get(2);
      assertThat(second.id()).isEqualTo(2);
      assertThat(second.amount()).isEqualByComparingTo("12.3400");

      p.sql("UPDATE typed SET amount = 0.5000, label = NULL, flag = false WHERE id = 2");
      await().atMost(Duration.ofSeconds(20)).until(() -> !m.get(2).flag());
      assertThat(m.get(2).amount().toPlainString()).isEqualTo("0.5000");
      assertThat(m.get(2).label()).isNull();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                assertThat(plain.get(1)).isEqualTo(Plain.of(m.get(1)));
                assertThat(plain.get(2)).isEqualTo(Plain.of(m.get(2)));
              });
    }
  }

  private static void assertFirstRow(Typed r) {
    assertThat(r).isNotNull();
    assertThat(r.amount().toPlainString()).isEqualTo("12.3400");
    assertThat(r.ratio()).isEqualTo(0.25);
    assertThat(r.flag()).isTrue();
    assertThat(r.label()).isEqualTo("Zoë 😀");
    assertThat(r.payload()).containsExactly(0, 1, 2);
    assertThat(r.day()).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(r.clock()).isEqualTo(LocalTime.parse("13:45:30.123456"));
    assertThat(r.stamp()).isEqualTo(LocalDateTime.parse("2024-02-29T13:45:30.123456"));
    assertThat(r.instant()).isEqualTo(Instant.parse("2024-02-29T13:45:30.123456Z"));
    assertThat(r.doc().get("a").get(1).decimalValue()).isEqualByComparingTo("2.50");
    assertThat(r.nothing()).isNull();
  }
}
