package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code ALTER TABLE} of a cached table while it is served and written (add, rename, drop a
 * column, change a column's type): the mirrors take the new columns with their values, and never keep a dropped or renamed column's old values or read it
 * as null; their column list ({@code columns()}) changes with them. Before, on PostgreSQL a new column never appeared and a renamed or dropped one read
 * null in every changed row; on MariaDB a new column waited for reconciliation (counted as
 * drift) and a renamed one stopped the whole tail: no table's changes reached anyone until a
 * restart.
 */
class AlterTableWhileServingTest {

  private static final int ROWS = 20;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void addRenameAndDropColumnsReachTheMirrorsWhileRowsChange(Kind kind) throws Exception {
    List<String> ddl = List.of("CREATE TABLE items (id int PRIMARY KEY, a varchar(20) NOT NULL, b int NOT NULL)",
        "CREATE TABLE notes (id int PRIMARY KEY, v int NOT NULL)", "INSERT INTO notes VALUES (1, 0)");
    try (Pipeline p = Pipeline.create(kind, "alter_live", ddl, "items", "notes")) {
      for (int i = 1; i <= ROWS; i++) {
        p.sql("INSERT INTO items VALUES (" + i + ", 'a" + i + "', " + i + ")");
      }
      p.startServer();
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("c"), "items");
      TableMirror<Map<String, Object>> notes = p.readyMirror(p.client("n"), "notes");

      // writers on both tables all along; the items writer uses a column every step keeps
      AtomicReference<String> itemsWrite = new AtomicReference<>("UPDATE items SET b = b + 1 WHERE id = ");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger notesWritten = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer = new Thread(() -> {
        try (Connection c = p.db.connect(); Statement s = c.createStatement()) {
          for (int i = 0; !stop.get(); i++) {
            try {
              s.execute(itemsWrite.get() + (i % ROWS + 1));
            } catch (java.sql.SQLException e) {
              // a statement of the previous step that ran after the ALTER: the next one fits
            }
            s.execute("UPDATE notes SET v = " + (i + 1) + " WHERE id = 1");
            notesWritten.set(i + 1);
            Thread.sleep(5);
          }
        } catch (Exception e) {
          if (!stop.get()) {
            failure.set(e);
          }
        }
      }, "writer");
      writer.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> notesWritten.get() > 10);

      p.sql("ALTER TABLE items ADD COLUMN c int", "UPDATE items SET c = id * 10");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.get(ROWS).get("c") instanceof Number n
          && n.longValue() == ROWS * 10);
      assertThat(columnNames(items)).containsExactly("id", "a", "b", "c");
      itemsWrite.set("UPDATE items SET c = c + 1 WHERE id = ");

      p.sql("ALTER TABLE items RENAME COLUMN a TO a2");
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(items.rows()).allSatisfy(r ->
          assertThat(r).doesNotContainKey("a").containsEntry("a2", "a" + r.get("id"))));
      assertThat(columnNames(items)).containsExactly("id", "a2", "b", "c");

      p.sql("ALTER TABLE items DROP COLUMN b");
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(items.rows()).allSatisfy(r ->
          assertThat(r).doesNotContainKey("b").containsKeys("id", "a2", "c")));
      assertThat(columnNames(items)).containsExactly("id", "a2", "c");
      itemsWrite.set("UPDATE items SET c = c + 1 WHERE id = ");

      itemsWrite.set("UPDATE items SET a2 = a2 WHERE id = ");
      p.sql(kind == Kind.POSTGRESQL ? "ALTER TABLE items ALTER COLUMN c TYPE varchar(20)"
          : "ALTER TABLE items MODIFY c varchar(20)", "UPDATE items SET c = CONCAT('x', id)");
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(items.rows()).allSatisfy(r ->
          assertThat(r).containsEntry("c", "x" + r.get("id"))));
      assertThat(items.columns()).filteredOn(c -> c.name().equals("c")).singleElement()
          .satisfies(c -> assertThat(c.kind()).isEqualTo(io.tablecast.protocol.ColumnKind.STRING));

      // the other table kept flowing through it all
      int seen = notesWritten.get();
      await().atMost(Duration.ofSeconds(30)).until(() -> ((Number) notes.get(1).get("v")).intValue() >= seen);
      stop.set(true);
      writer.join();
      assertThat(failure.get()).isNull();
      p.awaitMirrorEqualsTable(items, "items");
      p.awaitMirrorEqualsTable(notes, "notes");
      // a client that joins now gets the new columns in its snapshot
      TableMirror<Map<String, Object>> late = p.readyMirror(p.client("late"), "items");
      assertThat(new ArrayList<>(late.get(1).keySet())).containsExactlyInAnyOrder("id", "a2", "c");
      assertThat(columnNames(late)).containsExactly("id", "a2", "c");
    }
  }

  private static List<String> columnNames(TableMirror<?> mirror) {
    return mirror.columns().stream().map(c -> c.name()).toList();
  }
}
