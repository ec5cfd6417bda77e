package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
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
      SourceConfig onlyTb =
          new SourceConfig(
              p.db.jdbcUrl(),
              null,
              null,
              List.of(p.db.table("tb")),
              true,
              null,
              null,
              Pipeline.RECONCILE_EVERY);
      try (TablecastServer serverB =
              TablecastServer.start(
                  p.serverConfig().toBuilder()
                      .set("server_name", "server-b")
                      .source(onlyTb)
                      .build());
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
}
