package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an application's role needs to write a cached table once the capture is installed: nothing
 * more than before (docs/SECURITY.md, "Writers need no grant"). Applications rarely write as the
 * tables' owner: a role holding INSERT, UPDATE and DELETE on its tables, and nothing else, is the
 * usual setup. On PostgreSQL the capture function ran with the writer's rights, so installing the
 * capture failed every write of such a role ("permission denied for table tablecast_outbox"); it
 * now runs as its owner, every name it uses qualified, so that a writer's own functions cannot take
 * the place of the ones it calls. MySQL/MariaDB triggers always run with their definer's rights.
 */
class WriterPrivilegesTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRoleThatMayOnlyWriteTheTableWritesItAndItsChangesReachTheMirrors(Kind kind)
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
            "INSERT INTO items VALUES (1, 'one')");
    try (Pipeline p = Pipeline.start(kind, "writer_privs", ddl, "items")) {
      String user = "tc_w_" + p.db.schema().replaceAll("[^a-z0-9]", "").substring(0, 12);
      String url = writerUrl(p, kind, user);
      try {
        TableMirror<Map<String, Object>> m = p.readyMirror(p.client("items"), "items");
        try (Connection writer = DriverManager.getConnection(url);
            Statement s = writer.createStatement()) {
          if (kind == Kind.POSTGRESQL) {
            // its own to_jsonb first in its search_path: the capture must not call it
            s.execute(
                "CREATE FUNCTION "
                    + user
                    + ".to_jsonb(anyelement) RETURNS jsonb LANGUAGE sql"
                    + " AS $$ SELECT '{\"id\": 1, \"name\": \"forged\"}'::jsonb $$");
            s.execute("SET search_path = " + user + ", pg_catalog");
          }
          s.executeUpdate("INSERT INTO " + p.db.table("items") + " VALUES (2, 'two')");
          s.executeUpdate("UPDATE " + p.db.table("items") + " SET name = 'uno' WHERE id = 1");
          s.executeUpdate("INSERT INTO " + p.db.table("items") + " VALUES (3, 'three')");
          s.executeUpdate("DELETE FROM " + p.db.table("items") + " WHERE id = 3");
        }
        p.awaitMirrorEqualsTable(m, "items");
        assertThat(m.get(2)).containsEntry("name", "two");
        assertThat(m.get(1)).containsEntry("name", "uno");
      } finally {
        p.sql(
            kind == Kind.MYSQL
                ? new String[] {"DROP USER IF EXISTS '" + user + "'@'%'"}
                : new String[] {
                  "DROP SCHEMA IF EXISTS " + user + " CASCADE",
                  "DROP OWNED BY " + user,
                  "DROP ROLE IF EXISTS " + user
                });
      }
    }
  }

  /**
   * A role that may read and write the cached table and nothing else of the schema (on PostgreSQL,
   * also a schema of its own, for the function it would have the capture call).
   */
  private static String writerUrl(Pipeline p, Kind kind, String user) {
    String items = p.db.table("items");
    if (kind == Kind.MYSQL) {
      p.sql(
          "DROP USER IF EXISTS '" + user + "'@'%'",
          "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'write-pw'",
          "GRANT SELECT, INSERT, UPDATE, DELETE ON " + items + " TO '" + user + "'@'%'");
      return p.db
          .jdbcUrl()
          .replaceAll("user=[^&]*", "user=" + user)
          .replaceAll("password=[^&]*", "password=write-pw");
    }
    p.sql(
        "DROP ROLE IF EXISTS " + user,
        "CREATE ROLE " + user + " LOGIN PASSWORD 'write-pw'",
        "GRANT USAGE ON SCHEMA \"" + p.db.schema() + "\" TO " + user,
        "GRANT SELECT, INSERT, UPDATE, DELETE ON " + items + " TO " + user,
        "CREATE SCHEMA " + user + " AUTHORIZATION " + user);
    String url = p.db.jdbcUrl().replaceAll("user=[^&]*", "user=" + user);
    return url.contains("password=")
        ? url.replaceAll("password=[^&]*", "password=write-pw")
        : url + "&password=write-pw";
  }
}
