package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Rows that trade primary keys in one transaction, as a DEFERRABLE primary key allows on
 * PostgreSQL: each change deletes its old key and writes its new one, and the mirror must end with
 * both rows, not lose the one whose new key another change deleted after it was written.
 */
class KeySwapTest {

  @Test
  void rowsThatSwapKeysInOneTransactionAreBothInTheMirror() {
    List<String> ddl =
        List.of(
            "CREATE TABLE slots (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, name text)",
            "INSERT INTO slots VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "keyswap", ddl, "slots")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("swap"), "slots");
      p.transaction(
          "UPDATE slots SET id = 2 WHERE name = 'a'", "UPDATE slots SET id = 1 WHERE name = 'b'");
      p.awaitMirrorEqualsTable(m, "slots");
      p.sql("UPDATE slots SET id = 4 - id"); // one statement: 1->3, 2->2, 3->1
      p.awaitMirrorEqualsTable(m, "slots");
      assertThat(m.size()).isEqualTo(3);
      // two rows on one key for a while, and the one that was there first deleted
      p.transaction(
          "UPDATE slots SET id = 2 WHERE name = 'c'", "DELETE FROM slots WHERE name = 'a'");
      p.awaitMirrorEqualsTable(m, "slots");
      assertThat(m.get(2)).containsEntry("name", "c");
    }
  }

  /**
   * A row inserted onto a key another row still holds, before that row moves on (a list that makes
   * room after the insert), and a row that passes through a held key and moves on, the row there
   * staying: the mirror holds every row, with no repair (the pipeline fails on one). Before
   * 2026-12-07 the inserted row, and the row passed through, were lost until reconciliation.
   */
  @Test
  void rowsInsertedOntoOrPassingThroughAHeldKeyAreAllInTheMirror() {
    List<String> ddl =
        List.of(
            "CREATE TABLE slots (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, name text)",
            "INSERT INTO slots VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "keyshare", ddl, "slots")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("share"), "slots");
      p.transaction(
          "INSERT INTO slots VALUES (2, 'new')",
          "UPDATE slots SET id = id + 1 WHERE id >= 2 AND name <> 'new'");
      p.awaitMirrorEqualsTable(m, "slots");
      assertThat(m.get(2)).containsEntry("name", "new");
      p.transaction(
          "UPDATE slots SET id = 2 WHERE name = 'd'", // no such row: nothing
          "UPDATE slots SET id = 2 WHERE name = 'a'", // onto 'new', which stays
          "UPDATE slots SET id = 9 WHERE name = 'a'");
      p.awaitMirrorEqualsTable(m, "slots");
      assertThat(m.get(2)).containsEntry("name", "new");
      assertThat(m.size()).isEqualTo(4);
    }
  }

  /**
   * A row moved onto a key another row still holds (a DEFERRABLE key) takes that row off the key: a
   * mirror of some rows must hear it even when the moved row is outside its filter. Before
   * 2026-12-07 the server said only "row 1 moved to key 2", which the filter dropped, and the
   * mirror kept the row of its filter that had been on key 2, moved to key 1 since, on both keys.
   */
  @Test
  void aMirrorOfSomeRowsHearsARowTakenOffItsKeyByARowOutsideIt() throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE slots (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, kind text)",
            "INSERT INTO slots VALUES (1, 'out'), (2, 'in'), (3, 'in')");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "keyswap_shape", ddl, "slots")) {
      TableMirror<Map<String, Object>> m =
          p.client("shaped").mirror(p.db.table("slots"), MirrorShape.rows("kind = 'in'"));
      assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
      assertThat(ids(m)).containsExactly(2, 3);

      // the row outside the filter first: 1 -> 2 while 'in' still holds 2, then 2 -> 1
      p.transaction(
          "UPDATE slots SET id = 2 WHERE kind = 'out'",
          "UPDATE slots SET id = 1 WHERE kind = 'in' AND id = 2");
      p.sql("INSERT INTO slots VALUES (9, 'in')"); // a later change, to know the swap was applied
      await().atMost(Duration.ofSeconds(30)).until(() -> m.get(9) != null);
      assertThat(ids(m)).as("the rows of kind 'in', by id").containsExactly(1, 3, 9);
      assertThat(m.get(1)).containsEntry("kind", "in");
    }
  }

  private static List<Integer> ids(TableMirror<Map<String, Object>> m) {
    Map<Integer, Object> byId = new TreeMap<>();
    for (Map<String, Object> r : m.rows()) {
      byId.put(((Number) r.get("id")).intValue(), r);
    }
    return List.copyOf(byId.keySet());
  }

  /** Without deferrable keys (MySQL/MariaDB check each row), a swap goes through a spare key. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(Kind.class)
  void rowsThatSwapKeysThroughASpareKeyAreBothInTheMirror(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE slots (id int PRIMARY KEY, name varchar(10))",
            "INSERT INTO slots VALUES (1, 'a'), (2, 'b')");
    try (Pipeline p = Pipeline.start(kind, "keyspare", ddl, "slots")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("spare"), "slots");
      p.transaction(
          "UPDATE slots SET id = 99 WHERE id = 1",
          "UPDATE slots SET id = 1 WHERE id = 2",
          "UPDATE slots SET id = 2 WHERE id = 99");
      p.awaitMirrorEqualsTable(m, "slots");
      assertThat(m.get(1)).containsEntry("name", "b");
      assertThat(m.get(2)).containsEntry("name", "a");
    }
  }
}
