package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.protocol.MessageType;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scale-out through NATS JetStream (docs/SCALE-OUT.md) against real {@code nats-server -js}
 * processes: {@code capture} publishes the database's committed batches to a stream, servers build
 * their images from it, clients converge, move between servers without a snapshot, and everything
 * recovers from a restarted capture or NATS. NATS runs with a 64 KiB {@code max_payload} so that
 * modest batches are split into parts.
 */
class NatsScaleOutTest {
  static final Duration CONVERGE = Duration.ofSeconds(60);
  static final long MAX_PAYLOAD = 64 * 1024;

  static NatsSettings nats(NatsServerProcess n, Pipeline p) {
    return new NatsSettings(List.of(n.url()), "TC_" + p.db.schema(), null, null, null);
  }

  static TablecastServer serve(NatsServerProcess n, Pipeline p, String name)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .set("nats", nats(n, p))
            .build());
  }

  static StreamCapture capture(NatsServerProcess n, Pipeline p) throws InterruptedException {
    return capture(n, p, "it-capture");
  }

  private static StreamCapture capture(NatsServerProcess n, Pipeline p, String name)
      throws InterruptedException {
    return StreamCapture.start(p.sourceConfig(), nats(n, p), name);
  }

  static TablecastClient client(String name, String... servers) {
    return TablecastClient.builder()
        .servers(servers)
        .clientName(name)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
  }

  @Test
  void twoServersOfOneStreamServeTheTableAndAClientMovesBetweenThemWithoutASnapshot()
      throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natstwo", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p)) {
      TablecastServer first = serve(n, p, "first");
      try (TablecastServer second = serve(n, p, "second");
          CuttableProxy toSecond = new CuttableProxy("127.0.0.1", second.port());
          TablecastClient client =
              client("mover", "127.0.0.1:" + first.port(), toSecond.address())) {
        assertThat(second.epoch()).as("one epoch per stream").isEqualTo(first.epoch());
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
        List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
        m.addListener(events::add);
        p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
        await().atMost(CONVERGE).until(() -> events.size() == 1);
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        long seen = first.position();
        await().atMost(CONVERGE).until(() -> second.position() == seen);
        client.sync(CONVERGE); // an edge server answers it through the capture leader

        first.close();
        p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
        p.sql("INSERT INTO accounts VALUES (40, 'while moving', 0)");
        p.sql("DELETE FROM accounts WHERE id = 4");
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        List<String> ops = events.stream().map(e -> e.op() + " " + e.key()).toList();
        assertThat(ops).containsExactly("UPDATE 1", "UPDATE 2", "INSERT 40", "DELETE 4");
        assertThat(toSecond.frames(MessageType.RESUMED))
            .as("the position of the first server is resumed on the second")
            .isEqualTo(1);
        assertThat(toSecond.frames(MessageType.SNAPSHOT_BEGIN))
            .as("no snapshot on the second server")
            .isZero();
        assertThat(second.metrics().reconcileRepairs()).isZero();
      } finally {
        first.close();
      }
    }
  }

  @Test
  void clientsOfAnEdgeServerThatDiesResumeOnAnotherWithoutASnapshot() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsdies", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer first = serve(n, p, "first");
        TablecastServer second = serve(n, p, "second");
        CuttableProxy toFirst = new CuttableProxy("127.0.0.1", first.port());
        CuttableProxy toSecond = new CuttableProxy("127.0.0.1", second.port())) {
      List<TablecastClient> clients = new ArrayList<>();
      List<List<String>> events = new ArrayList<>();
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          TablecastClient c = client("client-" + i, toFirst.address(), toSecond.address());
          clients.add(c);
          TableMirror<Map<String, Object>> m = p.readyMirror(c, "accounts");
          List<String> seen = new CopyOnWriteArrayList<>();
          m.addListener(e -> seen.add(e.op() + " " + e.key()));
          mirrors.add(m);
          events.add(seen);
        }
        p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
        for (TableMirror<Map<String, Object>> m : mirrors) {
          TransferWorkload.awaitConverged(p, m, CONVERGE);
        }
        long seen = first.position();
        await().atMost(CONVERGE).until(() -> second.position() == seen);

        toFirst.block(true); // the first server dies: its connections drop, no goodbye
        toFirst.cut();
        p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
        p.sql("INSERT INTO accounts VALUES (40, 'while moving', 0)");
        for (int i = 0; i < 3; i++) {
          TransferWorkload.awaitConverged(p, mirrors.get(i), CONVERGE);
          assertThat(events.get(i))
              .as("client %d: each change once", i)
              .containsExactly("UPDATE 1", "UPDATE 2", "INSERT 40");
        }
        assertThat(toSecond.frames(MessageType.RESUMED))
            .as("every client resumed its position on the second server")
            .isEqualTo(3);
        assertThat(toSecond.frames(MessageType.SNAPSHOT_BEGIN))
            .as("no snapshot on the second server")
            .isZero();
      } finally {
        for (TablecastClient c : clients) {
          c.close();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRestartedCaptureLosesNothingAndRepeatsNothing(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natsrestart", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD)) {
      StreamCapture capture = capture(n, p);
      try (TablecastServer server = serve(n, p, "edge");
          TablecastClient client = client("reader", "127.0.0.1:" + server.port())) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
        List<String> events = new CopyOnWriteArrayList<>();
        m.addListener(e -> events.add(e.op() + " " + e.key()));
        p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
        await().atMost(CONVERGE).until(() -> events.size() == 1);

        capture.close();
        p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
        p.sql("INSERT INTO accounts VALUES (40, 'while capture is down', 0)");
        capture = capture(n, p);
        assertThat(capture.resumed()).as("resumed after the cursor, no snapshot").isTrue();
        p.sql("DELETE FROM accounts WHERE id = 4");
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        p.sql("UPDATE accounts SET balance = 9 WHERE id = 9");
        await().atMost(CONVERGE).until(() -> events.size() >= 5);
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        assertThat(events)
            .as("each change once, none lost, across the restart")
            .containsExactly("UPDATE 1", "UPDATE 2", "INSERT 40", "DELETE 4", "UPDATE 9");
        assertThat(server.metrics().reconcileRepairs()).isZero();
      } finally {
        capture.close();
      }
    }
  }

  @Test
  void aBatchLargerThanMaxPayloadIsSplitAndAppliedWhole() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsbig", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer server = serve(n, p, "edge");
        TablecastClient client = client("reader", "127.0.0.1:" + server.port())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      int before = m.size();
      List<Integer> sizesSeen = new CopyOnWriteArrayList<>();
      m.addListener(e -> sizesSeen.add(m.size()));
      long sequenceBefore = capture.lastSequence();
      StringBuilder insert = new StringBuilder("INSERT INTO accounts VALUES ");
      for (int i = 0; i < 3000; i++) {
        insert
            .append(i == 0 ? "" : ", ")
            .append("(")
            .append(1000 + i)
            .append(", '")
            .append("x".repeat(38))
            .append("', ")
            .append(i)
            .append(")");
      }
      p.sql(insert.toString()); // one transaction of ~200 KB in the row form
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(capture.lastSequence() - sequenceBefore)
          .as("the batch took several messages")
          .isGreaterThan(1);
      // the listener thread hears the batch after it is visible in the mirror: wait for all of it
      await()
          .atMost(CONVERGE)
          .alias("the listener heard every row of the transaction")
          .until(() -> sizesSeen.size() >= 3000);
      assertThat(sizesSeen)
          .as("a listener never sees part of the transaction")
          .hasSize(3000)
          .allMatch(s -> s == before + 3000);
    }
  }

  @Test
  void captureAndServersRecoverFromARestartedNats() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsdown", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer server = serve(n, p, "edge");
        TablecastClient client = client("reader", "127.0.0.1:" + server.port())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      List<String> events = new CopyOnWriteArrayList<>();
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      n.stop();
      p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
      p.sql("INSERT INTO accounts VALUES (40, 'while NATS is down', 0)");
      await()
          .atMost(CONVERGE)
          .alias("capture publishes again what NATS did not acknowledge")
          .until(capture::waitingForNats);
      n.restart();
      p.sql("DELETE FROM accounts WHERE id = 4");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      await().atMost(CONVERGE).until(() -> !capture.waitingForNats());
      assertThat(events)
          .as("each change once across the restart of NATS")
          .containsExactly("UPDATE 1", "UPDATE 2", "INSERT 40", "DELETE 4");
      assertThat(capture.fenced()).isNull();
      assertThat(server.metrics().reconcileRepairs()).isZero();
    }
  }

  @Test
  void aSecondCaptureOnTheSameStreamIsFencedOut() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsfence", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture one = capture(n, p, "one");
        StreamCapture two = capture(n, p, "two");
        TablecastServer server = serve(n, p, "edge");
        TablecastClient client = client("reader", "127.0.0.1:" + server.port())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      List<String> events = new CopyOnWriteArrayList<>();
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
      await().atMost(CONVERGE).until(() -> (one.fenced() == null) != (two.fenced() == null));
      StreamCapture fenced = one.fenced() != null ? one : two;
      assertThat(fenced.fenced()).hasMessageContaining("10071");
      p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(events)
          .as("the refused publisher added nothing")
          .containsExactly("UPDATE 1", "UPDATE 2");
    }
  }
}
