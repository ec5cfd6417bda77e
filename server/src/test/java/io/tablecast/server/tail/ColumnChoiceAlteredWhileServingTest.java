package io.tablecast.server.tail;

import static io.tablecast.server.tail.CommittedBatch.Purpose.RESYNC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A {@code cached_tables} entry that chooses columns ({@code columns: [...]}, {@code
 * exclude_columns: [...]}), and an ALTER TABLE while serving that renames or drops a column it
 * names. Before, the table could no longer be described as configured, and every read of the tail
 * failed on it, retried for ever: no change of any cached table reached the clients. Now a chosen
 * column gone makes that table alone stale, naming the column and the ways out, and the table is
 * followed again (re-read) once the column is back; the same for a primary key dropped; an excluded
 * column dropped changes nothing.
 */
class ColumnChoiceAlteredWhileServingTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aChosenColumnRenamedAwayMakesItsTableAloneStaleUntilItIsBack(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("choice_renamed");
    db.execute(
        "CREATE TABLE staff (id INT PRIMARY KEY, name VARCHAR(20), email VARCHAR(40), note INT)",
        "CREATE TABLE other (id INT PRIMARY KEY, v INT)",
        "INSERT INTO staff VALUES (1, 'mike', 'm@x', 1)");
    try (PolledSource tail =
        polled(
            db,
            List.of(
                new CachedTable("staff", List.of("name", "email"), null),
                CachedTable.of("other")))) {
      db.execute(
          "ALTER TABLE staff RENAME COLUMN email TO mail",
          "UPDATE staff SET mail = 'n@x', note = 2 WHERE id = 1",
          "INSERT INTO other VALUES (1, 1)");
      await("the other table's change delivered")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("other") == 1);
      await("staff stale, naming the column")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStaleFor("staff", "column email"));
      db.execute("INSERT INTO other VALUES (2, 2)");
      await("the other table's changes go on")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("other") == 2);

      db.execute("ALTER TABLE staff RENAME COLUMN mail TO email");
      await("staff re-read with what changed while it was stale, and followed again")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole("staff", RESYNC, rows -> has(rows, "email", "n@x"))
                      && tail.saidStale("staff", false));
      db.execute("UPDATE staff SET email = 'o@x' WHERE id = 1");
      await("its changes followed again")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.batches.stream()
                      .flatMap(b -> b.events().stream())
                      .filter(e -> e.table().endsWith(".staff"))
                      .anyMatch(e -> Rows.after(e).get("email").asText().equals("o@x")));
      if (kind == Kind.POSTGRESQL) { // MySQL/MariaDB's read of the changed rows fails once on it
        assertThat(tail.failures).as("reads failed").isEmpty();
      }
    }
  }

  /** The same for any change that leaves no way to describe the table: its key dropped. */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPrimaryKeyDroppedMakesItsTableAloneStaleUntilItIsBack(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("key_dropped");
    db.execute(
        "CREATE TABLE keyed (id INT NOT NULL, v INT, CONSTRAINT keyed_pk PRIMARY KEY (id))",
        "CREATE TABLE other (id INT PRIMARY KEY, v INT)",
        "INSERT INTO keyed VALUES (1, 1)");
    try (PolledSource tail =
        polled(db, List.of(CachedTable.of("keyed"), CachedTable.of("other")))) {
      db.execute(
          kind == Kind.MYSQL
              ? "ALTER TABLE keyed DROP PRIMARY KEY"
              : "ALTER TABLE keyed DROP CONSTRAINT keyed_pk",
          "UPDATE keyed SET v = 2",
          "INSERT INTO other VALUES (1, 1)");
      await("keyed stale, naming why")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStaleFor("keyed", "no primary key"));
      db.execute("INSERT INTO other VALUES (2, 2)");
      await("the other table's changes go on")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("other") == 2);

      db.execute("ALTER TABLE keyed ADD PRIMARY KEY (id)");
      await("keyed re-read with what changed while it was stale, and followed again")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole("keyed", RESYNC, rows -> has(rows, "v", "2"))
                      && tail.saidStale("keyed", false));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anExcludedColumnDroppedChangesNothing(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("choice_dropped");
    db.execute(
        "CREATE TABLE wide (id INT PRIMARY KEY, a INT, secret VARCHAR(20))",
        "INSERT INTO wide VALUES (1, 1, 's')");
    try (PolledSource tail =
        polled(db, List.of(new CachedTable("wide", null, List.of("secret"))))) {
      db.execute("ALTER TABLE wide DROP COLUMN secret");
      Thread.sleep(1000); // a few looks at the catalog
      db.execute("UPDATE wide SET a = 2 WHERE id = 1");
      await("the change delivered")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("wide") == 1);
      assertThat(tail.source.tables().get(0).columns()).hasSize(2);
      assertThat(tail.batches).allMatch(b -> b.staleness().isEmpty());
    }
  }

  /** Whether a row of {@code rows} has {@code value} (as text) in {@code column}. */
  private static boolean has(List<ObjectNode> rows, String column, String value) {
    return rows.stream().anyMatch(row -> row.get(column).asText().equals(value));
  }

  private static PolledSource polled(TestDatabases.Isolated db, List<CachedTable> tables)
      throws Exception {
    return PolledSource.open(
            new SourceConfig(
                db.jdbcUrl(),
                null,
                null,
                true,
                null,
                null,
                null,
                Duration.ofMillis(200), // looks at the catalog
                tables),
            MicrometerServerMetrics.inMemory())
        .poll();
  }
}
