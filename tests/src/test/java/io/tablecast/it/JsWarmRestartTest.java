package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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

  /** A Node process running warm-restart.mjs, its output lines and its input. */
  private record NodeClient(Process process, BlockingQueue<String> lines, Writer input) {
    String next() throws InterruptedException {
      String line = lines.poll(60, TimeUnit.SECONDS);
      assertThat(line).as("a line from the Node client").isNotNull();
      return line;
    }

    void send(String line) throws Exception {
      input.write(line + "\n");
      input.flush();
    }
  }

  private static NodeClient start(Path root, Pipeline p, String table, Path dir) throws Exception {
    Process node =
        new ProcessBuilder(
                "node",
                "tests/src/test/node/warm-restart.mjs",
                root.toString(),
                "ws://" + p.address() + "/ws",
                table,
                dir.toString())
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (Exception e) {
                lines.add("READ FAILED " + e);
              }
            },
            "node-output");
    reader.setDaemon(true);
    reader.start();
    return new NodeClient(
        node, lines, new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRestartedJavaScriptClientStartsFromItsSavedMirror(Kind kind, @TempDir Path dir)
      throws Exception {
    Path root = ReadmeTest.repoRoot();
    assertThat(root.resolve("client-js/node_modules/ws"))
        .as("client-js dependencies (cd client-js && npm ci)")
        .exists();
    try (Pipeline p = Pipeline.start(kind, "jswarm", ReadYourWritesTest.ddl(50), "accounts")) {
      String table = p.db.table("accounts");
      NodeClient first = start(root, p, table, dir);
      assertThat(first.next()).isEqualTo("CREATED false 0");
      assertThat(first.next()).isEqualTo("READY");
      first.send("CLOSE");
      assertThat(first.next()).isEqualTo("CLOSED");
      assertThat(first.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files.count()).as("the saved mirror").isEqualTo(1);
      }
      p.sql(
          "UPDATE " + table + " SET balance = 7 WHERE id <= 10",
          "DELETE FROM " + table + " WHERE id = 50",
          "INSERT INTO " + table + " VALUES (51, 3)");
      NodeClient second = start(root, p, table, dir);
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
      second.process().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
