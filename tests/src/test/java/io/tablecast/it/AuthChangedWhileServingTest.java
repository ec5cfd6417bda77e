package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ConfigFileWatch;
import io.tablecast.server.auth.PasswordHasher;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/tablecast serve} applies an {@code auth:} section changed in its configuration file
 * while it serves (docs/CONFIGURATION.md, "Changed while serving"): a principal added to the file
 * gets its mirror without a restart, and the mirror of one removed is ended and says so, while the
 * server's process and its other clients go on. Before, the file was read at start only.
 */
class AuthChangedWhileServingTest {

  @TempDir Path dir;

  @Test
  void aPrincipalAddedOrRemovedInTheFileTakesEffectWhileTheServerServes() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "auth_reload",
            List.of(
                "CREATE TABLE items (id INT PRIMARY KEY, v TEXT)",
                "INSERT INTO items VALUES (1, 'a')"),
            "items")) {
      String items = p.db.table("items");
      String ops = "    - { name: ops, password_hash: '" + hash("ops-pw") + "' }";
      String app = "    - { name: app, password_hash: '" + hash("app-pw") + "' }";
      Path cfg = dir.resolve("tablecast.yaml");
      Files.writeString(cfg, config(p, items, ops));
      try (ServeProcess serve = ServeProcess.start(cfg, dir.resolve("serve.log"))) {
        String server = "127.0.0.1:" + serve.awaitStarted(Duration.ofSeconds(60));

        try (TablecastClient opsClient = client(server, "ops", "ops-pw");
            TablecastClient appClient = client(server, "app", "app-pw")) {
          TableMirror<Map<String, Object>> opsItems = opsClient.mirror(items);
          TableMirror<Map<String, Object>> appItems = appClient.mirror(items);
          assertThat(opsItems.awaitReady(Duration.ofSeconds(30))).isTrue();
          assertThat(appItems.isReady()).as("app is not in the file yet").isFalse();

          Files.writeString(cfg, config(p, items, ops, app)); // app added
          Duration within = ConfigFileWatch.CHECK_EVERY.plusSeconds(25);
          await() // its client, refused until now, keeps connecting again
              .atMost(within)
              .alias("app's mirror, without a restart")
              .until(appItems::isReady);

          Files.writeString(cfg, config(p, items, app)); // ops removed
          await().atMost(within).until(() -> opsItems.staleReason() != null);
          assertThat(opsItems.staleReason()).contains("principal 'ops' was removed");
          p.sql("INSERT INTO items VALUES (2, 'b')");
          await().atMost(Duration.ofSeconds(30)).until(() -> appItems.get(2) != null);
        }
        assertThat(serve.isAlive()).as("the same process throughout").isTrue();
      }
    }
  }

  private static String config(Pipeline p, String table, String... principals) {
    return String.join(
        "\n",
        "server_name: auth-reload",
        "listen: { host: 127.0.0.1, port: 0 }",
        "source:",
        "  jdbc_url: '" + p.db.jdbcUrl() + "'",
        "  install_triggers: true",
        "cached_tables: [" + table + "]",
        "auth:",
        "  principals:",
        String.join("\n", principals),
        "");
  }

  private static String hash(String password) {
    return PasswordHasher.hash(password.toCharArray());
  }

  private static TablecastClient client(String server, String user, String password) {
    return TablecastClient.builder()
        .servers(server)
        .credentials(user, password)
        .reconnectBackoff(Duration.ofMillis(100), Duration.ofMillis(500))
        .build();
  }
}
