package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Wide tables, as ERP and reporting schemas have them (hundreds of columns): the capture triggers,
 * the tail's row reads and the mirrors take a table of as many columns as the database allows
 * (InnoDB: 1,017; PostgreSQL: 1,600), on both databases.
 */
class WideTableTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableOfAsManyColumnsAsTheDatabaseAllowsIsMirroredAndFollowed(Kind kind) throws Exception {
    int widest = kind == Kind.MYSQL ? 1_017 : 1_600;
    String list =
        IntStream.range(0, widest - 1) // the key besides
            .mapToObj(i -> "c" + i + " int" + (i % 2 == 0 ? " NOT NULL DEFAULT 0" : ""))
            .collect(Collectors.joining(", "));
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE wide (id int PRIMARY KEY, " + list + ")");
    ddl.add("INSERT INTO wide (id, c0, c999) VALUES (1, 1, 1), (2, 2, 2)");
    try (Pipeline p = Pipeline.create(kind, "wide", ddl, "wide")) {
      p.startServer();
      TableMirror<Map<String, Object>> wide = p.readyMirror(p.client("wide"), "wide");
      assertThat(wide.get(1)).hasSize(widest).containsEntry("c999", 1);

      p.sql(
          "INSERT INTO wide (id, c500, c998) VALUES (3, 3, 3)",
          "UPDATE wide SET c999 = 42, c1 = 7 WHERE id = 1",
          "DELETE FROM wide WHERE id = 2");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> wide.get(2) == null && wide.get(3) != null);
      p.awaitMirrorEqualsTable(wide, "wide");
      assertThat(wide.get(1)).containsEntry("c999", 42).containsEntry("c1", 7);
      assertThat(wide.get(3)).containsEntry("c500", 3).containsEntry("c1", null);
    }
  }

  /**
   * A primary key of as many columns as the database allows in an index (InnoDB: 16; PostgreSQL:
   * 32), of mixed types, a key moved by an update included.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKeyOfAsManyColumnsAsTheDatabaseAllowsIsFollowed(Kind kind) throws Exception {
    int parts = kind == Kind.MYSQL ? 16 : 32;
    List<String> keyColumns = IntStream.range(0, parts).mapToObj(i -> "k" + i).toList();
    String columns =
        IntStream.range(0, parts)
            .mapToObj(i -> "k" + i + (i % 3 == 0 ? " int" : i % 3 == 1 ? " varchar(8)" : " date"))
            .collect(Collectors.joining(", "));
    String key = String.join(", ", keyColumns);
    try (Pipeline p =
        Pipeline.create(
            kind,
            "widekey",
            List.of(
                "CREATE TABLE widekey (" + columns + ", v int, PRIMARY KEY (" + key + "))",
                "INSERT INTO widekey VALUES (" + values(parts, 1) + ", 1)",
                "INSERT INTO widekey VALUES (" + values(parts, 2) + ", 2)"),
            "widekey")) {
      p.startServer();
      TableMirror<Map<String, Object>> mirror = p.readyMirror(p.client("widekey"), "widekey");
      assertThat(mirror.size()).isEqualTo(2);
      p.sql(
          "INSERT INTO widekey VALUES (" + values(parts, 3) + ", 3)",
          "UPDATE widekey SET v = 20 WHERE v = 2",
          "UPDATE widekey SET k0 = 100 WHERE v = 1", // the key moves
          "DELETE FROM widekey WHERE v = 3");
      p.awaitMirrorEqualsTable(mirror, "widekey");
      assertThat(mirror.size()).isEqualTo(2);
    }
  }

  /** A row of {@code parts} key values, all made from {@code n}. */
  private static String values(int parts, int n) {
    return IntStream.range(0, parts)
        .mapToObj(
            i ->
                i % 3 == 0
                    ? Integer.toString(n)
                    : i % 3 == 1 ? "'k" + n + "'" : "'2026-12-0" + n + "'")
        .collect(Collectors.joining(", "));
  }
}
