package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/SECURITY.md's serving grants, exactly as listed there, on both databases: an administrator
 * installs the capture once; the server then serves snapshots and live changes as a user that can
 * read the cached tables and the outbox and delete outbox rows, and nothing else: it cannot change
 * the tables' rows or definitions, create or drop triggers, write the outbox other than deleting,
 * create tables, or read a table that is not cached.
 */
class LeastPrivilegeTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void serverServesWithTheDocumentedGrantsAndThatUserCanChangeNothing(Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one')",
            "CREATE TABLE other (id int PRIMARY KEY)");
    try (Pipeline p = Pipeline.create(kind, "leastpriv", ddl, "items")) {
      try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
        admin.install(); // as the administrator
      }
      String user = "tc_serve_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String restrictedUrl = grantServingRights(p, kind, user);
      try {
        servesAsThatUserOnly(p, kind, restrictedUrl);
      } finally { // users and roles are the database server's, not the test schema's
        p.sql(
            kind == Kind.MYSQL
                ? new String[] {"DROP USER IF EXISTS '" + user + "'@'%'"}
                : new String[] {"DROP OWNED BY " + user, "DROP ROLE IF EXISTS " + user});
      }
    }
  }

  private static void servesAsThatUserOnly(Pipeline p, Kind kind, String restrictedUrl)
      throws Exception {
    try (Connection c = DriverManager.getConnection(restrictedUrl);
        Statement s = c.createStatement()) {
      for (String sql : forbidden(p, kind)) {
        assertThatThrownBy(() -> s.execute(sql)).as(sql).isInstanceOf(SQLException.class);
      }
      if (kind == Kind.MYSQL) {
        // MySQL shows triggers only to holders of TRIGGER: this user does not see the capture
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.TRIGGERS")) {
          rs.next();
          assertThat(rs.getInt(1)).isZero();
        }
      }
    }

    SourceConfig source =
        new SourceConfig(
            restrictedUrl, null, null, List.of(p.db.table("items")), false, null, null);
    try (TriggerInstaller asServer = TriggerInstaller.connect(source)) {
      // it may see that the database replicates from nobody (MySQL/MariaDB: SLAVE MONITOR)
      assertThat(asServer.check())
          .as("findings about the source")
          .noneMatch(f -> f.subject().equals("source"));
    }
    try (TablecastServer server = serve("least-privilege", source);
        TablecastClient client =
            TablecastClient.builder().servers("127.0.0.1:" + server.port()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(p.db.table("items"));
      assertThat(m.awaitReady(Pipeline.READY)).isTrue();
      p.sql("INSERT INTO items VALUES (2, 'two')", "UPDATE items SET name = 'uno' WHERE id = 1");
      p.awaitMirrorEqualsTable(m, "items");
      try (Connection c = p.db.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT server_name FROM tablecast_consumers")) {
        assertThat(rs.next()).as("the serving user registered the server").isTrue();
        assertThat(rs.getString(1)).isEqualTo("least-privilege");
      }
    }
  }

  /**
   * Row-level security enabled on a cached table while serving, with a policy that hides rows from
   * the serving user: the next capture check finds it, logs why and the ways out, and the table is
   * stale for its clients (its reads would no longer see the table); once the user bypasses the
   * policies, the table is re-read and follows the table again.
   */
  @org.junit.jupiter.api.Test
  void rowLevelSecurityEnabledWhileServingMakesTheTableStaleUntilTheUserBypassesIt()
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one'), (2, 'two')");
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "rls_live", ddl, "items")) {
      try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
        admin.install();
      }
      String user = "tc_rls_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String restrictedUrl = grantServingRights(p, Kind.POSTGRESQL, user);
      SourceConfig source =
          new SourceConfig(
              restrictedUrl,
              null,
              null,
              List.of(p.db.table("items")),
              false,
              null,
              null,
              Pipeline.RECONCILE_EVERY,
              Pipeline.CAPTURE_CHECK_EVERY);
      try (TablecastServer server = serve("rls-live", source);
          TablecastClient client =
              TablecastClient.builder().servers("127.0.0.1:" + server.port()).build()) {
        TableMirror<Map<String, Object>> m = client.mirror(p.db.table("items"));
        assertThat(m.awaitReady(Pipeline.READY)).isTrue();
        p.sql(
            "ALTER TABLE items ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY only_one ON items USING (id = 1)");
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(20))
            .untilAsserted(
                () ->
                    assertThat(m.staleReason())
                        .contains("row-level security")
                        .contains("BYPASSRLS"));
        assertThat(m.size()).as("the mirror keeps the rows the policy hides").isEqualTo(2);
        p.sql("ALTER ROLE " + user + " BYPASSRLS", "INSERT INTO items VALUES (3, 'three')");
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(20))
            .untilAsserted(() -> assertThat(m.staleReason()).isNull());
        p.awaitMirrorEqualsTable(m, "items");
        assertThat(server.metrics().captureProblems()).isPositive();
        assertThat(server.metrics().reconcileRepairs()).isZero();
      } finally {
        p.sql("DROP TABLE items", "DROP OWNED BY " + user, "DROP ROLE " + user);
      }
    }
  }

  /**
   * A cached table the serving user may no longer read while the server serves: on PostgreSQL a
   * migration that creates it anew without the grant (and reinstalls the capture as the
   * administrator), on MySQL/MariaDB (whose table grants outlive a dropped table) its SELECT
   * revoked. Its mirror is stale, naming the grant it lacks, the other table's changes flow on, and
   * once the grant is back the table is read again and followed. Before, PostgreSQL's tail failed
   * every poll on the table and no change of any table reached the clients until the grant was
   * back; MySQL/MariaDB said the table was "dropped or renamed away".
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableTheServingUserMayNoLongerReadIsStaleWhileTheOthersFlow(Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one')",
            "CREATE TABLE other (id int PRIMARY KEY, name varchar(40))");
    try (Pipeline p = Pipeline.create(kind, "denied_live", ddl, "items", "other")) {
      try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
        admin.install();
      }
      String user = "tc_deny_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String restrictedUrl = grantServingRights(p, kind, user, "items", "other");
      SourceConfig source =
          new SourceConfig(
              restrictedUrl,
              null,
              null,
              List.of(p.db.table("items"), p.db.table("other")),
              false,
              null,
              null,
              Pipeline.RECONCILE_EVERY,
              Pipeline.CAPTURE_CHECK_EVERY);
      String items = p.db.table("items");
      try (TablecastServer server = serve("denied-live", source);
          TablecastClient client =
              TablecastClient.builder().servers("127.0.0.1:" + server.port()).build()) {
        TableMirror<Map<String, Object>> m = client.mirror(items);
        TableMirror<Map<String, Object>> other = client.mirror(p.db.table("other"));
        assertThat(m.awaitReady(Pipeline.READY)).isTrue();
        assertThat(other.awaitReady(Pipeline.READY)).isTrue();
        if (kind == Kind.MYSQL) {
          p.sql("REVOKE SELECT ON " + items + " FROM '" + user + "'@'%'");
        } else {
          p.sql(
              "DROP TABLE items",
              "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
              "INSERT INTO items VALUES (1, 'one')");
          try (TriggerInstaller admin = TriggerInstaller.connect(p.sourceConfig())) {
            admin.install(); // the migration's last step; the grant is forgotten
          }
        }
        p.sql("UPDATE items SET name = 'uno' WHERE id = 1", "INSERT INTO other VALUES (1, 'a')");
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(20))
            .untilAsserted(
                () -> {
                  assertThat(m.staleReason()).contains("the server's user may not read");
                  assertThat(other.get(1)).containsEntry("name", "a");
                });
        p.sql("INSERT INTO other VALUES (2, 'b')");
        p.awaitMirrorEqualsTable(other, "other");
        assertThat(other.staleReason()).isNull();

        p.sql(
            kind == Kind.MYSQL
                ? "GRANT SELECT ON " + items + " TO '" + user + "'@'%'"
                : "GRANT SELECT ON " + items + " TO " + user);
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(m.staleReason()).isNull());
        p.awaitMirrorEqualsTable(m, "items");
        p.sql("UPDATE items SET name = 'followed' WHERE id = 1");
        p.awaitMirrorEqualsTable(m, "items");
        assertThat(m.get(1)).containsEntry("name", "followed");
      } finally {
        p.sql(
            kind == Kind.MYSQL
                ? new String[] {"DROP USER IF EXISTS '" + user + "'@'%'"}
                : new String[] {
                  "DROP TABLE items, other", "DROP OWNED BY " + user, "DROP ROLE " + user
                });
      }
    }
  }

  /** A server of {@code source} on a free port. */
  private static TablecastServer serve(String name, SourceConfig source)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .source(source)
            .build());
  }

  /** Statements the serving user must be refused. */
  private static List<String> forbidden(Pipeline p, Kind kind) throws SQLException {
    String outbox = p.db.table("tablecast_outbox");
    String items = p.db.table("items");
    List<String> sql =
        new ArrayList<>(
            List.of(
                "ALTER TABLE items ADD COLUMN x int",
                "DROP TABLE items",
                "TRUNCATE TABLE items",
                "INSERT INTO items VALUES (9, 'nine')",
                "UPDATE items SET name = 'x'",
                "DELETE FROM items",
                "SELECT * FROM other",
                "CREATE TABLE sneaky (id int)",
                "DROP TABLE " + outbox,
                "INSERT INTO " + outbox + " (table_name, op) VALUES ('" + items + "', 'D')",
                "UPDATE " + outbox + " SET op = 'D'"));
    if (kind == Kind.MYSQL) {
      sql.add("CREATE TRIGGER sneaky AFTER INSERT ON items FOR EACH ROW SET @x = 1");
      try (Connection admin = p.db.connect();
          Statement s = admin.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE "
                      + "EVENT_OBJECT_SCHEMA = '"
                      + p.db.schema()
                      + "' AND EVENT_OBJECT_TABLE = 'items'")) {
        while (rs.next()) {
          sql.add("DROP TRIGGER `" + p.db.schema() + "`.`" + rs.getString(1) + "`");
        }
      }
      assertThat(sql).anyMatch(q -> q.startsWith("DROP TRIGGER"));
    } else {
      sql.add(
          "CREATE TRIGGER sneaky AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION \""
              + p.db.schema()
              + "\".tablecast_capture()");
      sql.add("DROP TRIGGER tablecast_capture ON items");
      sql.add(
          "CREATE OR REPLACE FUNCTION \""
              + p.db.schema()
              + "\".tablecast_capture() RETURNS trigger "
              + "LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$");
    }
    return sql;
  }

  /** The serving grants of docs/SECURITY.md, nothing more; returns the serving user's JDBC URL. */
  private static String grantServingRights(Pipeline p, Kind kind, String user) {
    return grantServingRights(p, kind, user, "items");
  }

  /** {@link #grantServingRights} for the cached {@code tables}. */
  static String grantServingRights(Pipeline p, Kind kind, String user, String... tables) {
    String schema = p.db.schema();
    if (kind == Kind.MYSQL) {
      String to = " TO '" + user + "'@'%'";
      p.sql(
          "DROP USER IF EXISTS '" + user + "'@'%'",
          "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'serve-pw'");
      for (String t : tables) {
        p.sql("GRANT SELECT ON `" + schema + "`.`" + t + "`" + to);
      }
      p.sql(
          "GRANT SELECT, DELETE ON `" + schema + "`.`tablecast_outbox`" + to,
          "GRANT SELECT, INSERT, UPDATE, DELETE ON `" + schema + "`.`tablecast_consumers`" + to,
          "GRANT PROCESS ON *.*" + to,
          "GRANT SLAVE MONITOR ON *.*" + to);
      return p.db
          .jdbcUrl()
          .replaceAll("user=[^&]*", "user=" + user)
          .replaceAll("password=[^&]*", "password=serve-pw");
    }
    String q = "\"" + schema + "\"";
    p.sql(
        "DROP ROLE IF EXISTS " + user,
        "CREATE ROLE " + user + " LOGIN PASSWORD 'serve-pw'",
        "GRANT USAGE ON SCHEMA " + q + " TO " + user,
        "GRANT SELECT ON " + q + ".tablecast_outbox TO " + user,
        "GRANT DELETE ON " + q + ".tablecast_outbox TO " + user,
        "GRANT SELECT, INSERT, UPDATE, DELETE ON " + q + ".tablecast_consumers TO " + user);
    for (String t : tables) {
      p.sql("GRANT SELECT ON " + q + "." + t + " TO " + user);
    }
    String url = p.db.jdbcUrl().replaceAll("user=[^&]*", "user=" + user);
    return url.contains("password=")
        ? url.replaceAll("password=[^&]*", "password=serve-pw")
        : url + "&password=serve-pw";
  }
}
