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
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL writes that would bypass ordinary triggers still reach the mirror: sessions in {@code
 * session_replication_role = replica} (logical replication subscribers), and triggers disabled
 * while the server runs ({@code ALTER TABLE ... DISABLE TRIGGER}, or pg_restore's {@code
 * --disable-triggers}, which leaves them enabled for origin sessions only afterwards).
 */
class TriggerStateTest {

  private static final List<String> ITEMS =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)",
          "INSERT INTO items VALUES (1, 'a'), (2, 'b')");

  @Test
  void writesOfReplicaRoleSessionsReachTheMirror() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "replica_role", ITEMS, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("replica"), "items");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        s.execute(
            "SET session_replication_role = replica"); // as a logical replication apply worker does
        s.execute("INSERT INTO items VALUES (3, 'c')");
        s.execute("UPDATE items SET name = 'b2' WHERE id = 2");
        s.execute("DELETE FROM items WHERE id = 1");
        s.execute("TRUNCATE items");
        s.execute("INSERT INTO items VALUES (4, 'd')");
      }
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(m.size()).isEqualTo(1);
    }
  }

  @Test
  void triggerDisabledWhileServingIsReenabledAndTheTableResynced() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "disabled_live", ITEMS, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("disabled"), "items");
      p.sql(
          "ALTER TABLE items DISABLE TRIGGER USER",
          "INSERT INTO items VALUES (3, 'lost without a trigger')",
          "UPDATE items SET name = 'changed unseen' WHERE id = 1",
          "DELETE FROM items WHERE id = 2");
      p.awaitMirrorEqualsTable(m, "items");
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(p.server().metrics().captureProblems()).isPositive());
      p.sql("INSERT INTO items VALUES (4, 'after')");
      p.awaitMirrorEqualsTable(m, "items");
    }
  }

  /**
   * A trigger disabled and enabled ALWAYS again inside one transaction leaves the catalog as it
   * was: no capture check can see it. Reconciliation (a key range per reconcile_interval) finds the
   * rows written meanwhile, names their keys and repairs them, counted as repairs.
   */
  @Test
  void changesMadeWhileATriggerWasInvisiblyDisabledAreFoundByTheDriftCheckAndRepaired()
      throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "drift", ITEMS, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("drift"), "items");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("ALTER TABLE items DISABLE TRIGGER USER");
        s.execute("INSERT INTO items VALUES (3, 'inserted unseen')");
        s.execute("UPDATE items SET name = 'updated unseen' WHERE id = 1");
        s.execute("DELETE FROM items WHERE id = 2");
        s.execute(ENABLE_ALWAYS);
        c.commit();
      }
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(p.server().metrics().reconcileRepairs()).isEqualTo(3);
      assertThat(p.server().metrics().captureProblems())
          .as("the catalog never showed a disabled trigger")
          .isZero();
      p.expectRepairs(3);
      p.sql("INSERT INTO items VALUES (4, 'after')"); // and the capture goes on
      p.awaitMirrorEqualsTable(m, "items");
    }
  }

  static final String ENABLE_ALWAYS =
      "DO $$ DECLARE t record; BEGIN FOR t IN SELECT tgname FROM pg_trigger "
          + "WHERE tgrelid = 'items'::regclass AND NOT tgisinternal LOOP "
          + "EXECUTE format('ALTER TABLE items ENABLE ALWAYS TRIGGER %I', t.tgname); END LOOP; END $$";

  /** A trigger disabled while no server ran is enabled ALWAYS again by the install at start. */
  @Test
  void triggerDisabledBeforeStartIsReenabledByTheInstallAtStart() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "disabled_start", ITEMS, "items")) {
      p.stopServer();
      p.sql(
          "ALTER TABLE items DISABLE TRIGGER USER",
          "INSERT INTO items VALUES (3, 'while no server ran')");
      p.startServer();
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("restarted"), "items");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement();
          java.sql.ResultSet rs =
              s.executeQuery(
                  "SELECT string_agg(DISTINCT tgenabled::text, ',') FROM pg_trigger "
                      + "WHERE tgrelid = 'items'::regclass")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("A");
      }
      p.sql("UPDATE items SET name = 'after' WHERE id = 3", "DELETE FROM items WHERE id = 1");
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(m.get(3)).containsEntry("name", "after");
    }
  }

  /**
   * pg_restore --disable-triggers (and pg_dump's data-only scripts) wrap the data of each table in
   * DISABLE TRIGGER ALL / ENABLE TRIGGER ALL: the rows arrive without triggers, and the triggers
   * come back enabled for origin sessions only, so replica-role writers would bypass them
   * afterwards. The server notices, enables them ALWAYS again and re-reads the table.
   */
  @Test
  void dataLoadedWithTriggersDisabledThenReenabledAsByPgRestoreReachesTheMirror() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "restore_like", ITEMS, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("restore"), "items");
      p.transaction(
          "ALTER TABLE items DISABLE TRIGGER ALL",
          "INSERT INTO items SELECT g, 'restored' FROM " + "generate_series(10, 20) g",
          "ALTER TABLE items ENABLE TRIGGER ALL");
      p.awaitMirrorEqualsTable(m, "items");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        s.execute("SET session_replication_role = replica");
        s.execute("DELETE FROM items WHERE id = 10"); // seen only by a trigger enabled ALWAYS
      }
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(m.get(10)).isNull();
    }
  }
}
