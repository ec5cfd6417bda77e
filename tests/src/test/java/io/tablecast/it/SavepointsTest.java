package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Savepoints, as ORMs use them for nested transactions (Hibernate, Django's nested {@code atomic},
 * pgjdbc's {@code autosave}): what a transaction wrote and then rolled back to a savepoint never
 * reaches a mirror, what it released or wrote after does, with the rest of its transaction, and a
 * row changed on both sides of a rollback to a savepoint ends as committed. On MySQL/MariaDB the
 * outbox ids the rolled-back part took are gaps that the transaction holds open until it ends.
 */
class SavepointsTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void whatARollbackToASavepointUndidNeverReachesAMirror(Kind kind) throws Exception {
    try (Pipeline p =
        Pipeline.create(
            kind,
            "savepoints",
            List.of(
                "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL)",
                "INSERT INTO items VALUES (1, 'one')"),
            "items")) {
      p.startServer();
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("savepoints"), "items");
      p.transaction(
          "INSERT INTO items VALUES (2, 'kept')",
          "SAVEPOINT a",
          "INSERT INTO items VALUES (3, 'undone')",
          "UPDATE items SET name = 'undone' WHERE id = 1",
          "SAVEPOINT b",
          "DELETE FROM items WHERE id = 2",
          "ROLLBACK TO SAVEPOINT a",
          "INSERT INTO items VALUES (4, 'after')",
          "SAVEPOINT c",
          "UPDATE items SET name = 'released' WHERE id = 1",
          "RELEASE SAVEPOINT c");
      p.transaction(
          "SAVEPOINT d", "UPDATE items SET name = 'whole undone' WHERE id = 4", "ROLLBACK TO d");
      p.sql("INSERT INTO items VALUES (5, 'later')"); // reaches the mirror after the above
      p.awaitMirrorEqualsTable(items, "items");
      assertThat(items.get(5)).isNotNull();

      // open across others' commits: its rolled-back part's outbox rows are gaps it holds
      try (Connection open = p.connect();
          Statement s = open.createStatement()) {
        open.setAutoCommit(false);
        s.execute("INSERT INTO items VALUES (10, 'open, kept')");
        s.execute("SAVEPOINT e");
        s.execute("INSERT INTO items VALUES (11, 'open, undone')");
        s.execute("ROLLBACK TO SAVEPOINT e");
        p.sql("INSERT INTO items VALUES (12, 'committed meanwhile')");
        await().atMost(Duration.ofSeconds(30)).until(() -> items.get(12) != null);
        s.execute("INSERT INTO items VALUES (13, 'open, after')");
        open.commit();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> items.get(13) != null);
      p.awaitMirrorEqualsTable(items, "items");
      assertThat(items.get(10)).containsEntry("name", "open, kept");
      assertThat(items.get(11)).isNull();
      assertThat(items.get(3)).isNull();
      assertThat(items.get(2)).containsEntry("name", "kept");
      assertThat(items.get(1)).containsEntry("name", "released");
      assertThat(items.get(4)).containsEntry("name", "after");
    }
  }
}
