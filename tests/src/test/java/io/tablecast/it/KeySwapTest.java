package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
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
