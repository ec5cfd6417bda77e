package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read-your-writes from the JavaScript client, in Node, against a real server: the test commits a
 * write through JDBC, the client awaits {@code sync()} and reads its mirror, which must hold the
 * write, every time ({@code tests/src/test/node/sync-reads.mjs}).
 */
class JsReadYourWritesTest {
  private static final int WRITES = 300;
  private static final int ROWS = 20;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriteCommittedBeforeSyncIsInTheJavaScriptMirrorWhenSyncResolves(Kind kind)
      throws Exception {
    Path root = ReadmeTest.repoRoot();
    assertThat(root.resolve("client-js/node_modules/ws"))
        .as("client-js dependencies (cd client-js && npm ci)")
        .exists();
    try (Pipeline p = Pipeline.start(kind, "jsryw", ReadYourWritesTest.ddl(ROWS), "accounts")) {
      String table = p.db.table("accounts");
      Process node =
          new ProcessBuilder(
                  "node",
                  "tests/src/test/node/sync-reads.mjs",
                  root.toString(),
                  "ws://" + p.address() + "/ws",
                  table)
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
      try (Writer toNode = new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8);
          Connection c = p.db.connect();
          PreparedStatement u =
              c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
        assertThat(lines.poll(60, TimeUnit.SECONDS))
            .as("the Node client's mirror")
            .isEqualTo("READY");
        Random r = new Random(5);
        for (int i = 1; i <= WRITES; i++) {
          int id = 1 + r.nextInt(ROWS);
          u.setLong(1, i);
          u.setInt(2, id);
          assertThat(u.executeUpdate()).isEqualTo(1); // committed: autocommit
          toNode.write(id + " " + i + "\n");
          toNode.flush();
          assertThat(lines.poll(60, TimeUnit.SECONDS))
              .as("write %d (id %d) read back after sync() in Node", i, id)
              .isEqualTo("OK");
        }
      } finally {
        assertThat(node.waitFor(30, TimeUnit.SECONDS))
            .as("node exits when its input ends")
            .isTrue();
        node.destroyForcibly();
      }
    }
  }
}
