package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A {@code capture} started while NATS is away (docs/SCALE-OUT.md, "NATS away at start") waits for
 * it, then competes for the lease and publishes; rows inserted meanwhile reach the client exactly
 * once. PostgreSQL only: what is tested is the capture's side of NATS, and a MariaDB capture, whose
 * tail has no cursor yet, republishes a snapshot when it starts (NatsCaptureFailoverTest covers
 * both databases for a NATS that goes away while capture runs).
 */
class NatsAwayAtStartTest {
  static final Duration TAKEOVER = Duration.ofSeconds(2);
  static final Duration CONVERGE = Duration.ofSeconds(90);
  static final Duration LONG_START_TAKEOVER = Duration.ofSeconds(4);

  @Test
  void aCaptureStartedWhileNatsIsAwayLeadsOnceItIsBackAndLosesNothing() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsatstart", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        InsertsOnce load = new InsertsOnce()) {
      NatsSettings nats = settings(n, p);
      try (CaptureStandby before = CaptureStandby.start(p.sourceConfig(), nats, "before");
          TablecastServer server = server(nats);
          TablecastClient client =
              NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
        await().atMost(CONVERGE).until(before::leading);
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
        load.listen(m);
        load.start(p, 1);
        await().atMost(CONVERGE).until(() -> load.seen() >= 20);

        // everything restarts, capture before NATS: rows go on being inserted meanwhile
        before.close();
        n.stop();
        try (CaptureStandby after = CaptureStandby.start(p.sourceConfig(), nats, "after")) {
          await()
              .atMost(CONVERGE)
              .alias("the capture waits for NATS instead of giving up")
              .until(after::waitingForNats);
          assertThat(after.failure()).isNull();
          n.restart();
          await().atMost(CONVERGE).until(after::leading);
          assertThat(after.waitingForNats()).isFalse();
          load.awaitMore(20, CONVERGE);
          load.awaitEveryRowOnce(p, m, load.stop(), CONVERGE, "across NATS away at start");
          assertThat(after.terms()).isEqualTo(1);
        }
      }
    }
  }

  @Test
  void aStandbyStartedWhileNatsRestartsKeepsCompetingAndTakesOver() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natsstandby", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        InsertsOnce load = new InsertsOnce()) {
      NatsSettings nats = settings(n, p);
      try (CaptureStandby first = CaptureStandby.start(p.sourceConfig(), nats, "first");
          TablecastServer server = server(nats);
          TablecastClient client =
              NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
        await().atMost(CONVERGE).until(first::leading);
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
        load.listen(m);
        load.start(p, 1);
        await().atMost(CONVERGE).until(() -> load.seen() >= 20);

        n.stop();
        try (CaptureStandby second = CaptureStandby.start(p.sourceConfig(), nats, "second")) {
          await().atMost(CONVERGE).until(second::waitingForNats);
          n.restart();
          await()
              .atMost(CONVERGE)
              .alias("one of the two publishes again")
              .until(() -> first.leading() || second.leading());
          first.close(); // the lease released: the standby takes over now if it does not lead yet
          await().atMost(CONVERGE).until(second::leading);
          load.awaitMore(20, CONVERGE);
          load.awaitEveryRowOnce(p, m, load.stop(), CONVERGE, "across the restart and takeover");
          assertThat(second.failure()).isNull();
          assertThat(second.terms()).isEqualTo(1);
        }
      }
    }
  }

  /**
   * A leader's start (triggers, the snapshot and its publishing) that takes longer than the
   * takeover time, as a large table's does, must not cost it the lease: before, the lease was not
   * renewed until capture had started, expired meanwhile, and the leader stopped and started again
   * (with a table always that long to read: for ever). Here the start waits on a table lock for two
   * takeover periods. The takeover is longer than the other tests' (4 s against 2): the lease must
   * also hold through the load that follows, and a renewal delayed past 2 s by a machine busy with
   * the rest of the suite lost it once.
   */
  @Test
  void aLeaderWhoseStartOutlastsTheTakeoverKeepsItsLease() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natslongstart", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        InsertsOnce load = new InsertsOnce();
        java.sql.Connection lock = p.db.connect()) {
      NatsSettings nats = settings(n, p).withCaptureTakeover(LONG_START_TAKEOVER);
      lock.setAutoCommit(false);
      try (java.sql.Statement s = lock.createStatement()) {
        s.execute("LOCK TABLE wide IN ACCESS EXCLUSIVE MODE");
      }
      try (CaptureStandby leader = CaptureStandby.start(p.sourceConfig(), nats, "slow-start")) {
        await().atMost(CONVERGE).until(() -> leader.terms() == 1);
        Thread.sleep(2 * LONG_START_TAKEOVER.toMillis()); // capture is starting, held by the lock
        lock.commit();
        await().atMost(CONVERGE).until(leader::leading);
        try (TablecastServer server = server(nats);
            TablecastClient client =
                NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
          TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
          load.listen(m);
          load.start(p, 1);
          load.awaitMore(20, CONVERGE);
          load.awaitEveryRowOnce(p, m, load.stop(), CONVERGE, "after a long start");
          assertThat(leader.terms()).as("the lease held through the start").isEqualTo(1);
        }
      }
    }
  }

  private static NatsSettings settings(NatsServerProcess n, Pipeline p) {
    return new NatsSettings(List.of(n.url()), "TC_" + p.db.schema(), null, null, null)
        .withCaptureTakeover(TAKEOVER);
  }

  private static TablecastServer server(NatsSettings nats) throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", "edge")
            .listen("127.0.0.1", 0)
            .set("nats", nats)
            .build());
  }
}
