package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Warm restart of the JavaScript client, in Node, against a real server, both databases: a first
 * process mirrors a table and closes (saving it); rows change while no client runs; a second
 * process has the saved rows the moment it creates the mirror, before any server answered, and
 * after {@code sync} holds the table as it is ({@code tests/src/test/node/warm-restart.mjs}).
 */
class JsWarmRestartTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRestartedJavaScriptClientStartsFromItsSavedMirror(Kind kind, @TempDir Path dir)
      throws Exception {
    try (Pipeline p = Pipeline.start(kind, "jswarm", ReadYourWritesTest.ddl(50), "accounts")) {
      String table = p.db.table("accounts");
      String url = "ws://" + p.address() + "/ws";
      NodeScript first = NodeScript.start("warm-restart.mjs", url, table, dir.toString());
      assertThat(first.next()).isEqualTo("CREATED false 0");
      assertThat(first.next()).isEqualTo("READY");
      first.send("CLOSE");
      assertThat(first.next()).isEqualTo("CLOSED");
      assertThat(first.exits()).isTrue();
      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files.count()).as("the saved mirror").isEqualTo(1);
      }
      p.sql(
          "UPDATE " + table + " SET balance = 7 WHERE id <= 10",
          "DELETE FROM " + table + " WHERE id = 50",
          "INSERT INTO " + table + " VALUES (51, 3)");
      NodeScript second = NodeScript.start("warm-restart.mjs", url, table, dir.toString());
      assertThat(second.next())
          .as("ready with the saved rows before any server answered")
          .isEqualTo("CREATED true 50");
      assertThat(second.next()).isEqualTo("READY");
      second.send("SYNC");
      String rows = second.next();
      assertThat(rows).doesNotStartWith("FAILED");
      Map<Long, Long> mirrored = new TreeMap<>();
      for (JsonNode row : JSON.readTree(rows)) {
        mirrored.put(row.get("id").asLong(), row.get("balance").asLong());
      }
      Map<Long, Long> expected = new TreeMap<>();
      try (Connection c = p.db.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id, balance FROM " + table)) {
        while (rs.next()) {
          expected.put(rs.getLong(1), rs.getLong(2));
        }
      }
      assertThat(mirrored).isEqualTo(expected);
      second.send("CLOSE");
      assertThat(second.next()).isEqualTo("CLOSED");
      assertThat(second.exits()).isTrue();
    }
  }
}
