package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL table inheritance: {@code SELECT * FROM parent} includes the rows of every descendant,
 * so a cached parent's mirror must follow them too: rows written to a child directly or routed
 * there by a {@code CREATE RULE ... DO INSTEAD}, children created or leaving while the server runs,
 * TRUNCATE of a child and {@code TRUNCATE ONLY} of the parent.
 */
class InheritanceCaptureTest {

  /**
   * Yearly children filled through rules on the parent (the pre-10 partitioning recipe), and a
   * grandchild.
   */
  private static final List<String> MEASUREMENTS =
      List.of(
          "CREATE TABLE measurements (id int PRIMARY KEY, at date NOT NULL, v int)",
          "CREATE TABLE measurements_2023 (CHECK (at < '2024-01-01'), PRIMARY KEY (id)) INHERITS (measurements)",
          "CREATE TABLE measurements_2024 (CHECK (at >= '2024-01-01'), note text, PRIMARY KEY (id)) INHERITS (measurements)",
          "CREATE TABLE measurements_2024_q4 (CHECK (at >= '2024-10-01'), PRIMARY KEY (id)) INHERITS (measurements_2024)",
          "CREATE RULE measurements_route_2023 AS ON INSERT TO measurements WHERE NEW.at < '2024-01-01' "
              + "DO INSTEAD INSERT INTO measurements_2023 VALUES (NEW.*)",
          "CREATE RULE measurements_route_2024 AS ON INSERT TO measurements WHERE NEW.at >= '2024-01-01' "
              + "DO INSTEAD INSERT INTO measurements_2024 (id, at, v) VALUES (NEW.*)",
          "INSERT INTO measurements VALUES (1, '2023-03-01', 10), (2, '2024-03-01', 20)",
          "INSERT INTO measurements_2024_q4 VALUES (3, '2024-11-01', 30)");

  @Test
  void rowsOfChildrenWrittenDirectlyOrRoutedByRulesReachTheParentsMirror() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "inh_rows", MEASUREMENTS, "measurements")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("inh"), "measurements");
      assertThat(m.size()).isEqualTo(3);
      p.sql(
          // routed by the rules
          "INSERT INTO measurements VALUES (4, '2023-06-01', 40), (5, '2024-06-01', 50)",
          "INSERT INTO measurements_2024 (id, at, v, note) VALUES (6, '2024-07-01', 60, 'direct')",
          "INSERT INTO measurements_2024_q4 VALUES (7, '2024-12-01', 70)",
          "UPDATE measurements SET v = v + 1", // through the parent: every level
          "UPDATE measurements_2023 SET v = 0 WHERE id = 4",
          "DELETE FROM measurements_2024 WHERE id = 5",
          "DELETE FROM measurements WHERE id = 7");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(((Number) m.get(6).get("v")).intValue()).isEqualTo(61);
      assertThat(m.get(6)).doesNotContainKey("note"); // the parent's columns only
      assertThat(m.size()).isEqualTo(5);
    }
  }

  @Test
  void truncateOfAChildAndTruncateOnlyOfTheParentRemoveOnlyTheirRows() {
    List<String> ddl = new java.util.ArrayList<>(MEASUREMENTS);
    ddl.add("DROP RULE measurements_route_2023 ON measurements");
    ddl.add("DROP RULE measurements_route_2024 ON measurements");
    // the parent's own rows
    ddl.add("INSERT INTO measurements VALUES (100, '2022-01-01', 1), (101, '2022-01-02', 2)");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "inh_truncate", ddl, "measurements")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("inh"), "measurements");
      assertThat(m.size()).isEqualTo(5);
      p.sql("TRUNCATE measurements_2023");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.get(1)).isNull();
      p.sql("TRUNCATE ONLY measurements"); // the children keep their rows
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.size()).isEqualTo(2);
      p.transaction(
          "INSERT INTO measurements VALUES (102, '2022-01-03', 3)",
          "TRUNCATE measurements_2024",
          // truncates the grandchild too
          "INSERT INTO measurements_2024_q4 VALUES (8, '2024-10-10', 8)");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.size()).isEqualTo(2);
      p.sql("TRUNCATE measurements");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.size()).isZero();
    }
  }

  @Test
  void childCreatedWhileServingIsCapturedAndAChildThatLeavesTakesItsRowsAway() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "inh_later", MEASUREMENTS, "measurements")) {
      // rows 20 and 21 (a child written before its triggers), 30 (INHERIT), 1 (NO INHERIT)
      p.allowRepairs(4);
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("inh"), "measurements");
      p.sql(
          "CREATE TABLE measurements_2025 (CHECK (at >= '2025-01-01'), PRIMARY KEY (id)) INHERITS (measurements)",
          "INSERT INTO measurements_2025 VALUES (20, '2025-01-01', 1), (21, '2025-01-02', 2)");
      p.awaitMirrorEqualsTable(
          m, "measurements"); // the server installed its triggers and re-read the table
      p.sql(
          "INSERT INTO measurements_2025 VALUES (22, '2025-01-03', 3)",
          "UPDATE measurements_2025 SET v = -v",
          "DELETE FROM measurements_2025 WHERE id = 20");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(((Number) m.get(21).get("v")).intValue()).isEqualTo(-2);

      // an existing table that starts inheriting brings its rows along
      p.sql(
          "CREATE TABLE measurements_old (id int PRIMARY KEY, at date NOT NULL, v int)",
          "INSERT INTO measurements_old VALUES (30, '2020-01-01', 1)",
          "ALTER TABLE measurements_old INHERIT measurements");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.get(30)).isNotNull();

      // a child that stops inheriting takes its rows away, and its later changes are not the
      // parent's
      p.sql("ALTER TABLE measurements_2023 NO INHERIT measurements");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.get(1)).isNull();
      p.awaitCaptureTriggersDropped("measurements_2023"); // before that, its writes still reach m
      p.sql(
          "INSERT INTO measurements_2023 VALUES (40, '2023-01-01', 1)",
          "UPDATE measurements_2023 SET v = 99",
          // the rule routes it to the former child
          "INSERT INTO measurements VALUES (41, '2021-01-01', 1)");
      p.awaitMirrorEqualsTable(m, "measurements");
      assertThat(m.get(40)).isNull();
      assertThat(m.get(41)).isNull();
    }
  }

  /** A child of two cached parents belongs to both tables: each mirror gets its changes. */
  @Test
  void aChildOfTwoCachedParentsReachesBothMirrors() {
    List<String> ddl =
        List.of(
            "CREATE TABLE vehicles (id int PRIMARY KEY, name text)",
            "CREATE TABLE insured (id int PRIMARY KEY, policy text)",
            "CREATE TABLE insured_vehicles (PRIMARY KEY (id)) INHERITS (vehicles, insured)",
            "INSERT INTO vehicles VALUES (1, 'bike')",
            "INSERT INTO insured VALUES (2, 'p-2')",
            "INSERT INTO insured_vehicles VALUES (3, 'car', 'p-3')");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "inh_multi", ddl, "vehicles", "insured")) {
      TableMirror<Map<String, Object>> vehicles = p.readyMirror(p.client("vehicles"), "vehicles");
      TableMirror<Map<String, Object>> insured = p.readyMirror(p.client("insured"), "insured");
      p.sql(
          "INSERT INTO insured_vehicles VALUES (4, 'van', 'p-4')",
          "UPDATE insured_vehicles SET policy = 'p-3b' WHERE id = 3",
          "UPDATE vehicles SET name = upper(name)",
          "DELETE FROM insured WHERE id = 4",
          "TRUNCATE ONLY insured");
      p.awaitMirrorEqualsTable(vehicles, "vehicles");
      p.awaitMirrorEqualsTable(insured, "insured");
      assertThat(vehicles.get(3)).containsEntry("name", "CAR");
      assertThat(insured.get(3)).containsEntry("policy", "p-3b");
      assertThat(insured.get(2)).isNull();
    }
  }

  /**
   * A parent's {@code PRIMARY KEY} does not bind its children, so two rows of the tree may share a
   * key, and a mirror holds one row per key: the server says so (an ERROR naming the table and the
   * query that finds them; {@code tablecast.duplicate.keys}) from the snapshot on, and its
   * reconciliation passes neither swap the two rows in the mirrors each time nor count them as
   * drift.
   */
  @Test
  void rowsOfTheTreeThatShareAKeyAreCountedAndNotSwappedByReconciliation() {
    List<String> ddl =
        List.of(
            "CREATE TABLE accounts (id int PRIMARY KEY, name text)",
            "CREATE TABLE accounts_archive () INHERITS (accounts)",
            "INSERT INTO accounts VALUES (1, 'live'), (2, 'b')",
            "INSERT INTO accounts_archive VALUES (1, 'archived')");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "inh_dup", ddl, "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("dup"), "accounts");
      assertThat(m.size()).isEqualTo(2);
      assertThat(p.server().metrics().duplicateKeyRows()).isEqualTo(1);
      Object held = m.get(1).get("name");
      // reconciliation runs every second here: three passes, none a repair (stopServer checks)
      double runs = reconcileRuns(p);
      await().atMost(Duration.ofSeconds(30)).until(() -> reconcileRuns(p) >= runs + 3);
      assertThat(m.get(1).get("name")).isEqualTo(held);
      assertThat(p.server().metrics().duplicateKeyRows()).isEqualTo(1);

      // the limit itself: deleting one row of the key deletes the key from the mirrors, and
      // reconciliation brings the other back (a repair), after which no key is shared
      p.allowRepairs(1);
      p.sql("DELETE FROM accounts_archive");
      p.awaitMirrorEqualsTable(m, "accounts");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> p.server().metrics().duplicateKeyRows() == 0);

      // a new row of a child with a key of the parent: found by the next pass
      p.sql("INSERT INTO accounts_archive VALUES (2, 'archived b')");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> p.server().metrics().duplicateKeyRows() == 1);
    }
  }

  private static double reconcileRuns(Pipeline p) {
    return p.server().metrics().registry().find("tablecast.reconcile.runs").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
