package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The database stops taking the serving user's credentials while the server serves (a password
 * rotated before the server's configuration was, a role that may no longer log in), and its
 * sessions are ended: the mirrors are stale with the database's refusal, not only the cut that came
 * first, and follow again, with what was written meanwhile, once the credentials work.
 */
class CredentialsRefusedWhileServingTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * With {@code source.answer_timeout} at 2 s the poll waiting for a new connection is said stale
   * first, with the cut's error; the refusal follows once two failures in a row are of it. Before,
   * the mirrors kept the first words ("has not returned", later the cut's error) for as long as the
   * credentials were refused.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsAreStaleWithTheRefusalUntilTheCredentialsWorkAgain(Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one')");
    try (Pipeline p = Pipeline.create(kind, "refused_creds", ddl, "items")) {
      try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
        admin.install();
      }
      String user = "tc_creds_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String url = LeastPrivilegeTest.grantServingRights(p, kind, user, "items");
      try {
        p.startServer(
            b ->
                b.source(
                    new SourceConfig(
                            url, null, null, List.of(p.db.table("items")), false, null, null)
                        .withAnswerTimeout(ServerSetups.ANSWER_TIMEOUT)));
        TablecastClient client = p.client("creds");
        TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");

        p.sql(
            kind == Kind.MYSQL
                ? "ALTER USER '" + user + "'@'%' IDENTIFIED BY 'rotated-pw'"
                : "ALTER ROLE " + user + " NOLOGIN"); // trust authentication takes any password
        endSessionsOf(p, kind, user);
        p.sql("INSERT INTO items VALUES (2, 'written while refused')");
        String refusal =
            kind == Kind.MYSQL ? "Access denied for user '" + user : "not permitted to log in";
        await()
            .atMost(WAIT)
            .untilAsserted(
                () ->
                    assertThat(items.staleReason())
                        .contains("has read no changes from the database")
                        .contains(refusal));

        p.sql(
            kind == Kind.MYSQL
                ? "ALTER USER '" + user + "'@'%' IDENTIFIED BY 'serve-pw'"
                : "ALTER ROLE " + user + " LOGIN");
        await().atMost(WAIT).until(() -> items.staleReason() == null);
        p.awaitMirrorEqualsTable(items, "items");
        assertThat(items.get(2)).containsEntry("name", "written while refused");
      } finally {
        p.stopServer();
        p.sql(
            kind == Kind.MYSQL
                ? new String[] {"DROP USER IF EXISTS '" + user + "'@'%'"}
                : new String[] {"DROP OWNED BY " + user, "DROP ROLE " + user});
      }
    }
  }

  /**
   * {@code source.password_file} (docs/CONFIGURATION.md): the password rotated in the database and
   * then in the file, the server's sessions ended, is used for the connections made after it; the
   * mirror follows on, with what was written meanwhile, without a restart. The capture check's
   * connections take it too: a {@code TRUNCATE} after the rotation, which fires no trigger and
   * which only the check finds (reconciliation off), reaches the mirror. Before, the check
   * connected with the password read at start, failed at every round after the rotation (a WARN in
   * the log, no word to any mirror), and the mirror kept the truncated rows. MariaDB only: the
   * PostgreSQL here trusts every local connection, whatever its password.
   */
  @Test
  void aPasswordRotatedInTheFileIsUsedWithoutARestart(@TempDir Path dir) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one')");
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "rotated_file", ddl, "items")) {
      try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
        admin.install();
      }
      String user = "tc_file_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String url = LeastPrivilegeTest.grantServingRights(p, Kind.MYSQL, user, "items");
      Path file = Files.writeString(dir.resolve("db-password"), "serve-pw\n");
      try {
        p.startServer(
            b ->
                b.source(
                    new SourceConfig(
                        url.replaceAll("&password=[^&]*", ""),
                        null,
                        null,
                        false,
                        null,
                        null,
                        Duration.ZERO, // no reconciliation: only the capture check finds a TRUNCATE
                        Duration.ofSeconds(1),
                        List.of(CachedTable.of(p.db.table("items"))),
                        null,
                        null,
                        ServerSetups.ANSWER_TIMEOUT,
                        file)));
        TableMirror<Map<String, Object>> items = p.readyMirror(p.client("rotated"), "items");

        p.sql("ALTER USER '" + user + "'@'%' IDENTIFIED BY 'rotated-pw'");
        Files.writeString(file, "rotated-pw\n");
        endSessionsOf(p, Kind.MYSQL, user);
        p.sql("INSERT INTO items VALUES (2, 'written after the rotation')");
        await().atMost(WAIT).until(() -> items.get(2) != null);
        await().atMost(WAIT).until(() -> items.staleReason() == null);
        p.awaitMirrorEqualsTable(items, "items");

        p.sql("TRUNCATE TABLE items", "INSERT INTO items VALUES (3, 'written after the truncate')");
        await().atMost(WAIT).until(() -> items.get(3) != null);
        await().atMost(WAIT).until(() -> items.get(1) == null);
        p.awaitMirrorEqualsTable(items, "items");
      } finally {
        p.stopServer();
        p.sql("DROP USER IF EXISTS '" + user + "'@'%'");
      }
    }
  }

  /** Ends every session of {@code user}, as a DBA (or the pool's own lifetime) would. */
  private static void endSessionsOf(Pipeline p, Kind kind, String user) throws Exception {
    if (kind == Kind.POSTGRESQL) {
      p.sql(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + user + "'");
      return;
    }
    List<Long> ids = new ArrayList<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT id FROM information_schema.PROCESSLIST WHERE user = '" + user + "'")) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    assertThat(ids).as("the server's sessions").isNotEmpty();
    for (long id : ids) {
      p.sql("KILL " + id);
    }
  }
}
