package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.protocol.MessageType;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two servers tail the same database independently; a client configured with both moves to the
 * second when the first stops (GUARANTEES.md, "Several servers"). The second server cannot resume a
 * position of the first one's run, so the client re-snapshots from it, and its listeners see only
 * the real differences: none for rows that did not change, one event per row that changed while the
 * client moved.
 */
class SeveralServersTest {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void clientOfAStoppedServerMovesToAnotherAndResnapshotsFiringOnlyRealDifferences(Kind kind)
      throws Exception {
    Pipeline p = Pipeline.create(kind, "twoservers", TransferWorkload.ddl(), "accounts");
    TablecastServer first =
        TablecastServer.start(p.serverConfig().toBuilder().set("server_name", "first").build());
    try (p;
        TablecastServer second =
            TablecastServer.start(
                p.serverConfig().toBuilder().set("server_name", "second").build());
        CuttableProxy toSecond = new CuttableProxy("127.0.0.1", second.port());
        TablecastClient client =
            TablecastClient.builder()
                .servers("127.0.0.1:" + first.port(), toSecond.address())
                .clientName("mover")
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .build()) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      assertThat(first.metrics().snapshotsServed())
          .as("the client starts on the first server")
          .isEqualTo(1.0);
      assertThat(toSecond.connections()).isZero();
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);
      p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
      await().atMost(CONVERGE).until(() -> events.size() == 1);

      // the first server stops; the second is unreachable until the changes below are in its image
      toSecond.block(true);
      first.close();
      String[] whileMoving = {
        "UPDATE accounts SET balance = 2 WHERE id = 2",
        "INSERT INTO accounts VALUES (40, 'while moving', 0)",
        "DELETE FROM accounts WHERE id = 4",
        // changed and changed back, inserted and deleted: no difference, so no event
        "UPDATE accounts SET balance = balance + 7 WHERE id = 6",
        "UPDATE accounts SET balance = balance - 7 WHERE id = 6",
        "INSERT INTO accounts VALUES (41, 'short-lived', 0)",
        "DELETE FROM accounts WHERE id = 41",
      };
      for (String q : whileMoving) {
        long before = second.position();
        p.sql(q);
        await().atMost(CONVERGE).until(() -> second.position() > before);
      }
      assertThat(events).as("nothing arrives while no server is reachable").hasSize(1);
      toSecond.block(false);

      TransferWorkload.awaitConverged(p, m, CONVERGE);
      p.sql("UPDATE accounts SET balance = 99 WHERE id = 7");
      await().atMost(CONVERGE).until(() -> events.size() >= 5);
      List<String> seen =
          events.stream().map(e -> e.op() + " " + e.key()).collect(Collectors.toList());
      assertThat(seen)
          .as("events across the move: unchanged rows fire none")
          .hasSize(5)
          .startsWith("UPDATE 1")
          .endsWith("UPDATE 7");
      assertThat(seen.subList(1, 4)).containsExactlyInAnyOrder("UPDATE 2", "INSERT 40", "DELETE 4");
      assertThat(toSecond.frames(MessageType.RESUMED))
          .as("a position of another server's run is not resumed")
          .isZero();
      assertThat(toSecond.frames(MessageType.SNAPSHOT_BEGIN))
          .as("one re-snapshot from the second server")
          .isEqualTo(1);
      assertThat(second.metrics().reconcileRepairs())
          .as("rows repaired by reconciliation")
          .isZero();
    } finally {
      first.close();
    }
  }
}
