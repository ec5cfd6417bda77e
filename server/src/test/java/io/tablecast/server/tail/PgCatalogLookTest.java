package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL follows what no row shows of an {@code ALTER TABLE} (a primary key changed or dropped,
 * a type that still converts, a column added to a table nobody writes) by a look at the catalog
 * every {@code capture_check_interval}, which compares each table's fingerprint with the last
 * look's, and the types its values are made of (an enum's labels) with the last look's. The first
 * look only learned them: DDL committed between the start's read of the tables and that first look
 * was taken for the table as the server knew it, and never seen (a primary key dropped: the table
 * cached by a key it no longer has, saying nothing; an enum label renamed: the mirrors kept the old
 * label; seen once in CI as {@code AlterTypeWhileServingTest} timing out on a loaded machine).
 */
class PgCatalogLookTest {

  @Test
  void ddlCommittedBeforeTheFirstLookIsSeenByIt() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("first_look");
    db.execute(
        "CREATE TABLE keyed (id int NOT NULL, v int, CONSTRAINT keyed_pk PRIMARY KEY (id))",
        "CREATE TABLE wide (id int PRIMARY KEY, a int)",
        "CREATE TYPE mood AS ENUM ('sad', 'ok')",
        "CREATE TABLE feelings (id int PRIMARY KEY, m mood)",
        "INSERT INTO keyed VALUES (1, 1)",
        "INSERT INTO feelings VALUES (1, 'ok')");
    try (PolledSource tail =
        PolledSource.open(
            PolledSource.config(
                db, List.of("keyed", "wide", "feelings"), Duration.ZERO, Duration.ofMillis(300)),
            MicrometerServerMetrics.inMemory())) {
      // after the start's snapshot, before the first poll (and its look at the catalog)
      db.execute(
          "ALTER TABLE keyed DROP CONSTRAINT keyed_pk",
          "ALTER TABLE wide ADD COLUMN b int",
          "ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'");
      tail.poll();
      await("the key dropped said")
          .atMost(Duration.ofSeconds(10))
          .until(() -> tail.saidStaleFor("keyed", "no primary key"));
      await("the column added followed, though no row of the table was written")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  tail.readWhole("wide", CommittedBatch.Purpose.RESYNC, rows -> rows.isEmpty())
                      && tail.source.tables().stream()
                          .filter(t -> t.id().name().equals("wide"))
                          .anyMatch(t -> t.columns().size() == 3));
      await("the enum label renamed reaches the rows read at the start")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  tail.readWhole(
                      "feelings",
                      CommittedBatch.Purpose.RESYNC,
                      rows -> rows.size() == 1 && rows.get(0).get("m").asText().equals("fine")));
    }
  }

  /**
   * The start describes the tables (to install their triggers) before its snapshot, and DDL may
   * commit between the two (a migration run as the server starts). The snapshot learned the
   * catalog's fingerprints as they were in it, so no look ever found that DDL: a primary key
   * widened meanwhile left the table cached by its old key (rows that share it overwriting each
   * other), a column added to a table nobody writes never reached the mirrors, saying nothing. The
   * same held for DDL between a failed start snapshot and its retry.
   */
  @Test
  void ddlCommittedBetweenTheStartsDescriptionAndItsSnapshotIsReadByIt() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("start_window");
    db.execute(
        "CREATE TABLE keyed (id int NOT NULL, v int NOT NULL, CONSTRAINT keyed_pk PRIMARY KEY (id))",
        "CREATE TABLE wide (id int PRIMARY KEY, a int)",
        "INSERT INTO keyed VALUES (1, 1)",
        "INSERT INTO wide VALUES (1, 1)");
    ChangeSource source =
        ChangeSources.open(
            PolledSource.config(
                db, List.of("keyed", "wide"), Duration.ZERO, Duration.ofMillis(300)),
            MicrometerServerMetrics.inMemory());
    try {
      db.execute( // after the start's description, before its snapshot
          "ALTER TABLE keyed DROP CONSTRAINT keyed_pk, ADD PRIMARY KEY (id, v)",
          "ALTER TABLE wide ADD COLUMN b int DEFAULT 7");
      Map<String, ObjectNode> read = new ConcurrentHashMap<>();
      source.snapshot((t, row) -> read.put(t.id().name(), Rows.json(t, row)));

      assertThat(read.get("wide").get("b").asInt()).as("the column added, read").isEqualTo(7);
      assertThat(table(source, "keyed").primaryKey()).containsExactly("id", "v");
      assertThat(table(source, "wide").columns()).hasSize(3);
    } finally {
      source.close();
    }
  }

  private static TableSchema table(ChangeSource source, String name) {
    return source.tables().stream()
        .filter(t -> t.id().name().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
