package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/CONFIGURATION.md's {@code cached_tables}: names are taken as the catalog has them. A schema
 * (MySQL database) and a table whose names have capitals, a hyphen and a space, with columns named
 * by a reserved word and with a space, are cached, captured and followed like any other (a
 * decimal's value is its exact text in a generic mirror, docs/TYPES.md).
 */
class UnusualNamesTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableWithSpacesHyphensCapitalsAndReservedWordsInItsNamesIsFollowed(Kind kind)
      throws Exception {
    String schema = "Tc-Names " + ProcessHandle.current().pid();
    String table = "Order Items";
    String q = kind == Kind.MYSQL ? "`" : "\"";
    String quoted = q + schema + q + "." + q + table + q;
    String admin = kind.baseUrl();
    // the outbox in a schema of the test's own (dropped after the run), the table in the other
    String url = kind.isolated("unusual_names").jdbcUrl();
    run(
        admin,
        kind == Kind.MYSQL ? "DROP DATABASE IF EXISTS `" + schema + "`" : dropSchema(schema),
        (kind == Kind.MYSQL ? "CREATE DATABASE " : "CREATE SCHEMA ") + q + schema + q,
        "CREATE TABLE "
            + quoted
            + " ("
            + q
            + "Id"
            + q
            + " int PRIMARY KEY, "
            + q
            + "Unit Price"
            + q
            + " decimal(10,2), "
            + q
            + "select"
            + q
            + " varchar(20))",
        "INSERT INTO " + quoted + " VALUES (1, 1.50, 'a'), (3, 3.00, 'gone')");
    String name = schema + "." + table;
    SourceConfig source = new SourceConfig(url, null, null, List.of(name), true, null, null);
    try (TablecastServer server =
            TablecastServer.start(
                ServerConfig.builder()
                    .set("server_name", "unusual-names")
                    .listen("127.0.0.1", 0)
                    .source(source)
                    .build());
        TablecastClient client =
            TablecastClient.builder().servers("127.0.0.1:" + server.port()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(name);
      assertThat(m.awaitReady(Pipeline.READY)).isTrue();
      assertThat(m.get(1)).containsEntry("select", "a").containsEntry("Unit Price", "1.50");

      run(
          admin,
          "INSERT INTO " + quoted + " VALUES (2, 2.25, 'b')",
          "UPDATE " + quoted + " SET " + q + "select" + q + " = 'c' WHERE " + q + "Id" + q + " = 1",
          "DELETE FROM " + quoted + " WHERE " + q + "Id" + q + " = 3");
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                assertThat(m.get(1)).containsEntry("select", "c");
                assertThat(m.get(2)).containsEntry("Unit Price", "2.25");
                assertThat(m.get(3)).isNull();
              });
      assertThat(m.size()).isEqualTo(2);
    } finally {
      run(
          admin,
          kind == Kind.MYSQL ? "DROP DATABASE IF EXISTS `" + schema + "`" : dropSchema(schema));
    }
  }

  private static String dropSchema(String schema) {
    return "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE";
  }

  private static void run(String url, String... statements) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
