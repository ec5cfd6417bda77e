package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One large value must neither stop the stream nor be cut: it reaches every mirror whole, and the
 * changes of other tables keep flowing around it. PostgreSQL takes text values up to 1 GB (and its
 * capture, as {@code jsonb}, rows up to 256 MB); MariaDB's {@code max_allowed_packet} (16 MiB here)
 * bounds what it accepts, and what its {@code JSON_OBJECT} can return: a row read as JSON whose
 * JSON form is larger is refused with its table and key named, and the stream goes on; a row of a
 * table read as its columns' texts has no JSON form to outgrow.
 */
class LargeValueTest {

  private static List<String> ddl(Kind kind) {
    return ddl(kind, "");
  }

  /** {@code docs} with {@code more} columns after its body (", flags BIT(8) NULL"). */
  private static List<String> ddl(Kind kind, String more) {
    String text = kind == Kind.POSTGRESQL ? "text" : "LONGTEXT";
    return List.of(
        "CREATE TABLE docs (id int PRIMARY KEY, body " + text + " NOT NULL" + more + ")",
        "CREATE TABLE notes (id int PRIMARY KEY, v int NOT NULL)");
  }

  private static String repeat(Kind kind, String unit, int times) {
    return kind == Kind.POSTGRESQL
        ? "repeat('" + unit + "', " + times + ")"
        : "REPEAT('" + unit + "', " + times + ")";
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aValueAsLargeAsTheDatabaseTakesReachesEveryMirrorWholeWhileOtherChangesFlow(Kind kind) {
    int units = kind == Kind.POSTGRESQL ? 3_000_000 : 1_500_000; // 30 MB and 15 MB of text
    try (Pipeline p = Pipeline.start(kind, "large_value", ddl(kind), "docs", "notes")) {
      TablecastClient early = p.client("early");
      TableMirror<Map<String, Object>> docs = p.readyMirror(early, "docs");
      TableMirror<Map<String, Object>> notes = p.readyMirror(early, "notes");

      p.sql("INSERT INTO docs VALUES (1, " + repeat(kind, "0123456789", units) + ")");
      p.sql("INSERT INTO notes VALUES (1, 1)");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> notes.get(1) != null && docs.get(1) != null);
      assertBody(docs, "0123456789".repeat(units));

      p.sql(
          "UPDATE docs SET body = "
              + (kind == Kind.POSTGRESQL ? "body || 'z'" : "CONCAT(body, 'z')")
              + " WHERE id = 1",
          "UPDATE notes SET v = 2 WHERE id = 1");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> ((String) docs.get(1).get("body")).endsWith("z"));
      assertBody(docs, "0123456789".repeat(units) + "z");
      // its own transaction, committed after the large one: it may come one batch later
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertThat(notes.get(1)).containsEntry("v", 2));

      TableMirror<Map<String, Object>> late =
          p.readyMirror(p.client("late"), "docs"); // from the server's snapshot
      assertBody(late, "0123456789".repeat(units) + "z");
    }
  }

  /**
   * Larger than the 64 MiB pending-bytes limit and the three-heartbeat liveness window of the hub's
   * work.
   */
  @ParameterizedTest
  @EnumSource(value = Kind.class, names = "POSTGRESQL")
  void aValueOf200MegabytesReachesEveryMirrorWhole(Kind kind) {
    int units = 20_000_000; // 200 MB of text
    try (Pipeline p = Pipeline.create(kind, "huge_value", ddl(kind), "docs", "notes")) {
      // reconciliation at its default interval: every 1 s (the suite's) re-read the 200 MB row,
      // about 4 s each, which is what the test spent most of its minute on
      SourceConfig s = p.sourceConfig();
      p.startServer(
          b ->
              b.source(
                  new SourceConfig(
                      s.jdbcUrl(),
                      null,
                      null,
                      s.tableNames(),
                      true,
                      null,
                      null,
                      Duration.ofSeconds(30),
                      Pipeline.CAPTURE_CHECK_EVERY)));
      TablecastClient early = p.client("early");
      TableMirror<Map<String, Object>> docs = p.readyMirror(early, "docs");
      TableMirror<Map<String, Object>> notes = p.readyMirror(early, "notes");
      p.sql("INSERT INTO docs VALUES (1, " + repeat(kind, "0123456789", units) + ")");
      p.sql("INSERT INTO notes VALUES (1, 1)");
      await()
          .atMost(Duration.ofMinutes(3))
          .until(() -> notes.get(1) != null && docs.get(1) != null);
      assertBody(docs, "0123456789".repeat(units));
      assertThat(p.server().metrics().registry().find("tablecast.slow.consumers").counter().count())
          .isZero();
    }
  }

  /**
   * MariaDB: a row whose JSON form is larger than {@code max_allowed_packet} reads as NULL from
   * {@code JSON_OBJECT}. It used to fail every poll of the tail (a NullPointerException, retried
   * for ever), so no table's changes reached anyone; now the change is refused, named and counted,
   * the mirrors keep the row as it was and say they are stale (API, /health, metric), other changes
   * keep flowing, and the row's next change that fits is delivered and ends the staleness. (The
   * table has a BIT column, so its rows are read as {@code JSON_OBJECT}.)
   */
  @ParameterizedTest
  @EnumSource(value = Kind.class, names = "MYSQL")
  void aRowTooLargeForMaxAllowedPacketAsJsonIsRefusedByNameNeverDeleted(Kind kind)
      throws Exception {
    try (Pipeline p =
        Pipeline.start(kind, "json_too_large", ddl(kind, ", flags BIT(8) NULL"), "docs", "notes")) {
      TableMirror<Map<String, Object>> docs = p.readyMirror(p.client("c"), "docs");
      TableMirror<Map<String, Object>> notes = p.readyMirror(p.client("n"), "notes");
      p.sql("INSERT INTO docs VALUES (2, 'small', NULL)");
      await().atMost(Duration.ofSeconds(30)).until(() -> docs.get(2) != null);
      nineMegabytesOfQuotes(p);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  notes.get(1) != null
                      && p
                              .server()
                              .metrics()
                              .registry()
                              .find("tablecast.rows.refused")
                              .counters()
                              .stream()
                              .mapToDouble(c -> c.count())
                              .sum()
                          >= 1);
      assertThat(docs.get(2)).as("not taken for a delete").containsEntry("body", "small");
      // the table is stale, and says so: to the mirror's reader and listener, in /health and the
      // metrics
      await().atMost(Duration.ofSeconds(10)).until(() -> docs.staleReason() != null);
      assertThat(docs.staleReason())
          .contains(p.db.table("docs"))
          .contains("key [2]")
          .contains("max_allowed_packet");
      assertThat(notes.staleReason()).isNull();
      assertThat(Health.of(p)).contains("\"status\":\"UP\"").contains("\"staleTables\":1");
      assertThat(p.server().metrics().prometheusText())
          .contains("tablecast_table_stale{table=\"" + p.db.table("docs") + "\"} 1.0");

      p.sql("UPDATE docs SET body = 'again' WHERE id = 2");
      await().atMost(Duration.ofSeconds(30)).until(() -> "again".equals(docs.get(2).get("body")));
      await().atMost(Duration.ofSeconds(10)).until(() -> docs.staleReason() == null);
      assertThat(Health.of(p)).doesNotContain("staleTables");
      assertThat(p.server().metrics().prometheusText())
          .contains("tablecast_table_stale{table=\"" + p.db.table("docs") + "\"} 0.0");
    }
  }

  /**
   * MariaDB: the same 9 MB of quotes in a table whose columns are all read as their texts (no
   * {@code JSON_OBJECT}, so nothing 18 MB to outgrow {@code max_allowed_packet}): the row is
   * delivered whole, nothing is refused, and the table is not stale.
   */
  @ParameterizedTest
  @EnumSource(value = Kind.class, names = "MYSQL")
  void aRowTooLargeAsJsonIsDeliveredWholeWhenItsTableIsReadAsColumnTexts(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.start(kind, "texts_not_too_large", ddl(kind), "docs", "notes")) {
      TableMirror<Map<String, Object>> docs = p.readyMirror(p.client("c"), "docs");
      p.sql("INSERT INTO docs VALUES (2, 'small')");
      await().atMost(Duration.ofSeconds(30)).until(() -> docs.get(2) != null);
      nineMegabytesOfQuotes(p);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> docs.get(2).get("body").toString().length() == 9_000_000);
      assertThat(docs.get(2).get("body").equals("\"".repeat(9_000_000)))
          .as("the value arrived unchanged")
          .isTrue();
      assertThat(docs.staleReason()).isNull();
      assertThat(
              p.server().metrics().registry().find("tablecast.rows.refused").counters().stream()
                  .mapToDouble(c -> c.count())
                  .sum())
          .isZero();
    }
  }

  /**
   * Row 2 of {@code docs} becomes 9 MB of quotes (accepted by the table, 18 MB once JSON escapes
   * them), and a row of {@code notes} is written after it.
   */
  private static void nineMegabytesOfQuotes(Pipeline p) {
    p.sql(
        "UPDATE docs SET body = REPEAT('\"', 9000000) WHERE id = 2",
        "INSERT INTO notes VALUES (1, 1)");
  }

  private static void assertBody(TableMirror<Map<String, Object>> mirror, String expected) {
    String body = (String) mirror.get(1).get("body");
    assertThat(body.length()).isEqualTo(expected.length());
    assertThat(body.equals(expected)).as("the value arrived unchanged").isTrue();
  }
}
