package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: a user-defined type a cached table's values are made of, redefined while the table is
 * served. {@code ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'} changes every {@code 'ok'} of the
 * table, {@code ALTER TYPE pair ADD ATTRIBUTE} every composite value, and so does {@code ALTER
 * TABLE} of a table whose row type is a column's type; none of them changes a row, so no trigger
 * fires, and the cached table's own catalog rows stay as they were. Before, the mirrors kept the
 * old values, said nothing, and were repaired only when reconciliation reached each row (on a large
 * table, hours later). Reconciliation here runs once an hour, so only the capture check can find
 * the change: the mirror must show it within seconds, and closing checks that reconciliation
 * repaired nothing.
 */
class AlterTypeWhileServingTest {

  private static final Duration SOON = Duration.ofSeconds(15);

  @Test
  void valuesOfARedefinedTypeReachTheMirrorsWithoutARowChange() throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
            "CREATE DOMAIN kept_mood AS mood",
            "CREATE TYPE pair AS (a int, b text)",
            "CREATE TABLE spot (x int, y int)",
            "CREATE TABLE feelings (id int PRIMARY KEY, m mood, km kept_mood, moods mood[],"
                + " p pair, s spot, n int)",
            "INSERT INTO feelings VALUES (1, 'ok', 'ok', '{ok,sad}', '(1,x)', '(1,2)', 1),"
                + " (2, 'sad', 'happy', '{}', NULL, NULL, 2)");
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "alter_type", ddl, "feelings")) {
      p.startServer(Duration.ofHours(1), Pipeline.CAPTURE_CHECK_EVERY);
      TableMirror<Map<String, Object>> feelings = p.readyMirror(p.client("f"), "feelings");
      assertThat(feelings.get(1)).containsEntry("m", "ok").containsEntry("km", "ok");

      p.sql("ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'");
      await()
          .atMost(SOON)
          .untilAsserted(
              () ->
                  assertThat(feelings.get(1))
                      .containsEntry("m", "fine")
                      .containsEntry("km", "fine")
                      .containsEntry("moods", List.of("fine", "sad")));

      p.sql("ALTER TYPE pair ADD ATTRIBUTE c int", "ALTER TABLE spot RENAME COLUMN y TO why");
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> {
                assertThat(feelings.get(1).get("p"))
                    .asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsOnlyKeys("a", "b", "c")
                    .containsEntry("a", 1)
                    .containsEntry("c", null);
                assertThat(feelings.get(1).get("s")).isEqualTo(Map.of("x", 1, "why", 2));
              });

      // a label added changes no value; the mirror goes on following the rows
      p.sql("ALTER TYPE mood ADD VALUE 'meh'");
      p.sql("UPDATE feelings SET m = 'meh', n = 3 WHERE id = 2");
      await()
          .atMost(SOON)
          .untilAsserted(() -> assertThat(feelings.get(2)).containsEntry("m", "meh"));
    } // closing fails when reconciliation repaired a row
  }
}
