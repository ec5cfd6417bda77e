package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Random;
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
    try (Pipeline p = Pipeline.start(kind, "jsryw", ReadYourWritesTest.ddl(ROWS), "accounts")) {
      String table = p.db.table("accounts");
      NodeScript node = NodeScript.start("sync-reads.mjs", "ws://" + p.address() + "/ws", table);
      try (Connection c = p.db.connect();
          PreparedStatement u =
              c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
        assertThat(node.next()).as("the Node client's mirror").isEqualTo("READY");
        Random r = new Random(5);
        for (int i = 1; i <= WRITES; i++) {
          int id = 1 + r.nextInt(ROWS);
          u.setLong(1, i);
          u.setInt(2, id);
          assertThat(u.executeUpdate()).isEqualTo(1); // committed: autocommit
          node.send(id + " " + i);
          assertThat(node.next())
              .as("write %d (id %d) read back after sync() in Node", i, id)
              .isEqualTo("OK");
        }
        assertThat(node.endInput()).as("node exits when its input ends").isTrue();
      } finally {
        node.close();
      }
    }
  }
}
