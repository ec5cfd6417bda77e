package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A server pointed at a replica or standby instead of its primary. On MariaDB it used to start and
 * serve mirrors that never changed. Replication applies the primary's row changes as rows
 * (binlog_format ROW, MySQL 8's default), which fire no trigger on the replica: capture installed
 * there would record nothing, and the mirrors would never change.
 */
class ReplicaSourceTest {

  @Test
  void aMariadbReplicaIsRefusedAtStartNamingItsPrimary() throws Exception {
    try (LocalMariadb primary =
            LocalMariadb.start("replica-p", 21, "--log-bin", "--binlog-format=ROW");
        LocalMariadb replica = LocalMariadb.start("replica-r", 22)) {
      replica.replicate(primary);
      primary.execute(
          "CREATE DATABASE shop",
          "CREATE TABLE shop.items (id int PRIMARY KEY, name varchar(20))",
          "INSERT INTO shop.items VALUES (1, 'a')");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> "1".equals(countOrNull(replica)));
      for (boolean install : new boolean[] {true, false}) {
        ServerConfig config =
            LocalDatabases.serverConfig(replica.jdbcUrl("shop"), "shop.items", install);
        assertThatThrownBy(() -> TablecastServer.start(config).close())
            .as("install_triggers: %s", install)
            .hasMessageContaining("is a replica of 127.0.0.1:" + primary.port)
            .hasMessageContaining("Point source.jdbc_url at the primary");
      }
      assertThat(replica.query("SELECT count(*) FROM information_schema.TRIGGERS"))
          .as("nothing installed on the replica")
          .isEqualTo("0");
    }
  }

  @Test
  void aPostgresStandbyIsRefusedAtStartNamingItsPrimary() throws Exception {
    try (LocalDatabases.Postgres primary = LocalDatabases.Postgres.start("replica-pg")) {
      primary.execute(
          "CREATE SCHEMA shop",
          "CREATE TABLE shop.items (id int PRIMARY KEY, name text)",
          "INSERT INTO shop.items VALUES (1, 'a')");
      try (LocalDatabases.Postgres standby = primary.standby("replica-pg-standby")) {
        for (boolean install : new boolean[] {true, false}) {
          ServerConfig config =
              LocalDatabases.serverConfig(standby.jdbcUrl(), "shop.items", install);
          assertThatThrownBy(() -> TablecastServer.start(config).close())
              .as("install_triggers: %s", install)
              .hasMessageContaining("standby")
              .hasMessageContaining("127.0.0.1:" + primary.port)
              .hasMessageContaining("Point source.jdbc_url at the primary");
        }
      }
    }
  }

  private static String countOrNull(LocalMariadb db) {
    try {
      return db.query("SELECT count(*) FROM shop.items");
    } catch (java.sql.SQLException e) {
      return null;
    }
  }
}
