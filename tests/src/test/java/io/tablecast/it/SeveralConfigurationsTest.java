package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two servers with different {@code cached_tables} on one database and one outbox, both with {@code
 * install_triggers: true}: the second one's install must not remove the capture the first one reads
 * (it used to: the first server's mirror then went stale without a word on PostgreSQL, and lived on
 * reconciliation repairs on MySQL/MariaDB).
 */
class SeveralConfigurationsTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerInstallingAnotherConfigurationNeverRemovesTheCaptureARunningServerReads(Kind kind)
      throws Exception {
    Pipeline p =
        Pipeline.start(
            kind,
            "twoconfigs",
            List.of(
                "CREATE TABLE ta (id INT PRIMARY KEY, v INT NOT NULL)",
                "CREATE TABLE tb (id INT PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO ta VALUES (1, 1), (2, 2)"),
            "ta");
    try (p) {
      TableMirror<Map<String, Object>> a = p.readyMirror(p.client("reads-ta"), "ta");
      try (TablecastServer serverB = startServerCaching(p, "tb");
          TablecastClient clientB =
              TablecastClient.builder()
                  .servers("127.0.0.1:" + serverB.port())
                  .clientName("reads-tb")
                  .build()) {
        TableMirror<Map<String, Object>> b = clientB.mirror(p.db.table("tb"));
        assertThat(b.awaitReady(Pipeline.READY)).isTrue();
        p.transaction(
            "INSERT INTO ta VALUES (3, 3)",
            "UPDATE ta SET v = 20 WHERE id = 2",
            "DELETE FROM ta WHERE id = 1",
            "INSERT INTO tb VALUES (1, 1)");
        p.awaitMirrorEqualsTable(a, p.db.table("ta"));
        p.awaitMirrorEqualsTable(b, p.db.table("tb"));
        assertThat(serverB.metrics().reconcileRepairs()).as("server B's repairs").isZero();
      }
      p.sql("UPDATE ta SET v = 30 WHERE id = 3"); // server B is gone: server A still follows
      p.awaitMirrorEqualsTable(a, p.db.table("ta"));
    } // Pipeline.close: server A must not have needed a single reconciliation repair
  }

  /**
   * MySQL/MariaDB: two configurations that cache different children of one parent each need a
   * key-recording trigger on the parent (its cascades fire no trigger of the children), each
   * recording its own children's keys. The second server's install must not take the first one's
   * for a stale version of its own and drop it, nor the parent's own triggers, which the first
   * server caches: the first server's tables would then lose those changes to reconciliation (and
   * its capture check's reinstall dropped the second one's in turn).
   */
  @Test
  void aServerCachingAnotherChildOfAParentNeverRemovesTheParentsTriggerARunningServerReads()
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE parents (id INT PRIMARY KEY)",
            "CREATE TABLE kids (id INT PRIMARY KEY, parent_id INT NOT NULL, CONSTRAINT fk_kids"
                + " FOREIGN KEY (parent_id) REFERENCES parents (id) ON DELETE CASCADE)",
            "CREATE TABLE pets (id INT PRIMARY KEY, parent_id INT NOT NULL, CONSTRAINT fk_pets"
                + " FOREIGN KEY (parent_id) REFERENCES parents (id) ON DELETE CASCADE)",
            "INSERT INTO parents VALUES (1), (2), (3)",
            "INSERT INTO kids VALUES (10, 1), (11, 2), (12, 3)",
            "INSERT INTO pets VALUES (20, 1), (21, 2), (22, 3)");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "twocascades", ddl, "parents", "kids")) {
      TablecastClient clientA = p.client("reads-kids");
      TableMirror<Map<String, Object>> parents = p.readyMirror(clientA, "parents");
      TableMirror<Map<String, Object>> kids = p.readyMirror(clientA, "kids");
      try (TablecastServer serverB = startServerCaching(p, "pets");
          TablecastClient clientB =
              TablecastClient.builder()
                  .servers("127.0.0.1:" + serverB.port())
                  .clientName("reads-pets")
                  .build()) {
        TableMirror<Map<String, Object>> pets = clientB.mirror(p.db.table("pets"));
        assertThat(pets.awaitReady(Pipeline.READY)).isTrue();
        p.sql("DELETE FROM parents WHERE id = 1", "INSERT INTO parents VALUES (4)");
        p.awaitMirrorEqualsTable(parents, p.db.table("parents")); // its own triggers kept too
        p.awaitMirrorEqualsTable(kids, p.db.table("kids"));
        p.awaitMirrorEqualsTable(pets, p.db.table("pets"));
        assertThat(serverB.metrics().reconcileRepairs()).as("server B's repairs").isZero();
      }
      p.sql("DELETE FROM parents WHERE id = 2"); // server B is gone: server A still follows
      p.awaitMirrorEqualsTable(kids, p.db.table("kids"));
    } // Pipeline.close: server A must not have needed a single reconciliation repair
  }

  /** Server B, installing its capture, with {@code table} (unqualified) alone cached. */
  private static TablecastServer startServerCaching(Pipeline p, String table)
      throws InterruptedException {
    SourceConfig only =
        new SourceConfig(
            p.db.jdbcUrl(),
            null,
            null,
            List.of(p.db.table(table)),
            true,
            null,
            null,
            Pipeline.RECONCILE_EVERY,
            null);
    return TablecastServer.start(
        p.serverConfig().toBuilder().set("server_name", "server-b").source(only).build());
  }
}
