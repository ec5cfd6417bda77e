package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.tablecast.cli.TablecastCommand;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Capture high availability (docs/SCALE-OUT.md): two {@code capture} candidates per database, the
 * leader a {@code tablecast capture --config} process of its own (its {@code /health} read) killed
 * with SIGKILL; the standby takes over within the takeover time, and the client sees every inserted
 * row exactly once.
 */
class NatsCaptureFailoverTest {
  static final Duration TAKEOVER = Duration.ofSeconds(2);
  static final Duration CONVERGE = Duration.ofSeconds(90);

  /** A {@code max_payload} of parts of 4 KiB (GroupPublisher leaves 4 KiB for headers). */
  static final long SMALL_PARTS_PAYLOAD = 8 * 1024;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKilledCaptureLeaderIsReplacedByTheStandbyLosingAndRepeatingNothing(Kind kind)
      throws Exception {
    try (Rig rig = new Rig(kind, "natsfailover")) {
      rig.load.start(rig.p, 1);
      await().atMost(CONVERGE).until(() -> rig.load.seen() >= 20);
      assertThat(rig.standby.leading()).as("the standby waits while the leader runs").isFalse();

      rig.leader.destroyForcibly().waitFor(); // SIGKILL: no lease released, nothing closed
      long killedAt = System.nanoTime();
      await().atMost(CONVERGE).until(rig.standby::leading);
      Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
      System.out.printf(
          "%s: the standby published %d ms after the kill%n", kind, takeover.toMillis());
      rig.load.awaitMore(20, CONVERGE);
      int written = rig.load.stop();

      rig.load.awaitEveryRowOnce(rig.p, rig.mirror, written, CONVERGE, "across the takeover");
      assertThat(takeover)
          .as("the standby took over within the takeover time and its start")
          .isLessThan(TAKEOVER.plusSeconds(10));
      assertThat(rig.standby.terms()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLeaderKilledBetweenThePartsOfATransactionIsReplacedAndTheTransactionArrivesWhole(Kind kind)
      throws Exception {
    // Small parts, so that the leader is far from the group's last part when the kill lands: with
    // 330 parts of 64 KiB, a loaded machine sometimes let the leader publish the last part before
    // the watcher, told of part 1, had killed it (the group then completed before the kill).
    try (Rig rig = new Rig(kind, "natsparts", SMALL_PARTS_PAYLOAD);
        Connection watch = Nats.connect(rig.nats.url())) {
      AtomicReference<String> killedInGroup = new AtomicReference<>();
      AtomicBoolean groupCompletedAnyway = new AtomicBoolean();
      Dispatcher d =
          watch.createDispatcher(
              m -> {
                String part = m.getHeaders().getFirst("Tablecast-Part");
                String group = m.getHeaders().getFirst("Tablecast-Group");
                if (killedInGroup.get() == null && part.startsWith("1/") && !part.equals("1/1")) {
                  killedInGroup.set(group);
                  rig.leader.destroyForcibly(); // SIGKILL after the first of many parts
                } else if (group.equals(killedInGroup.get())
                    && part.substring(0, part.indexOf('/'))
                        .equals(part.substring(part.indexOf('/') + 1))) {
                  groupCompletedAnyway.set(true);
                }
              });
      d.subscribe("tablecast." + rig.stream);
      watch.flush(Duration.ofSeconds(5));

      int rows = 20_000; // about 21 MB: some 5,000 parts of 4 KiB
      rig.p.sql(
          kind == Kind.POSTGRESQL
              ? "INSERT INTO wide SELECT g, repeat('x', 1000) FROM generate_series(1, "
                  + rows
                  + ") g"
              : "INSERT INTO wide SELECT seq, REPEAT('x', 1000) FROM seq_1_to_" + rows);
      await().atMost(CONVERGE).until(() -> killedInGroup.get() != null);
      rig.leader.waitFor();
      await().atMost(CONVERGE).until(rig.standby::leading);

      rig.load.awaitEveryRowOnce(rig.p, rig.mirror, rows, CONVERGE, "across the takeover");
      assertThat(groupCompletedAnyway)
          .as("the leader was killed between the parts of the transaction's group")
          .isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void natsUnreachableLongerThanTheTakeoverAndTheOutboxRetentionLosesNothing(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natsaway", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        InsertsOnce load = new InsertsOnce()) {
      NatsSettings nats =
          new NatsSettings(List.of(n.url()), "TC_" + p.db.schema(), null, null, null)
              .withCaptureTakeover(TAKEOVER);
      SourceConfig source =
          new SourceConfig(
              p.db.jdbcUrl(),
              null,
              null,
              List.of(p.db.table("wide")),
              true,
              Duration.ofSeconds(1), // outbox retention far below the outage
              null,
              Pipeline.RECONCILE_EVERY,
              Pipeline.CAPTURE_CHECK_EVERY);
      try (CaptureStandby capture = CaptureStandby.start(source, nats, "capture");
          TablecastServer server = edge(nats);
          TablecastClient client =
              NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
        await().atMost(CONVERGE).until(capture::leading);
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
        load.listen(m);
        load.start(p, 1);
        await().atMost(CONVERGE).until(() -> load.seen() >= 20);

        n.stop();
        await()
            .atMost(CONVERGE)
            .alias("the leader gives up once its lease is a takeover period old")
            .until(() -> !capture.leading());
        TimeUnit.MILLISECONDS.sleep(TAKEOVER.toMillis() * 2); // rows older than the retention
        n.restart();
        await().atMost(CONVERGE).until(capture::leading);
        load.awaitMore(20, CONVERGE);
        load.awaitEveryRowOnce(p, m, load.stop(), CONVERGE, "across the outage");
        assertThat(capture.terms()).as("the capture stopped and took the lease again").isEqualTo(2);
      }
    }
  }

  /**
   * With no capture running (the leader stopped, no standby), an idle stream looks the same as a
   * stream of an idle database: before, the servers' mirrors went on as if current while the
   * database changed. Now a server that finds nobody holding the capture lease for longer than a
   * takeover takes (twice {@code nats.capture_takeover}, and 5 s) says every table stale, and
   * follows them again once a capture runs and has read them.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void withNoCaptureRunningTheServersSayTheirTablesStaleUntilOneRunsAgain(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natsnocap", List.of(InsertsOnce.DDL), "wide");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      NatsSettings nats =
          new NatsSettings(List.of(n.url()), "TC_" + p.db.schema(), null, null, null)
              .withCaptureTakeover(TAKEOVER);
      CaptureStandby capture = CaptureStandby.start(p.sourceConfig(), nats, "only");
      try (TablecastServer server = edge(nats);
          TablecastClient client =
              NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
        await().atMost(CONVERGE).until(capture::leading);
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "wide");
        capture.close();
        p.sql("INSERT INTO wide (id, pad) VALUES (1, 'while no capture runs')");
        await("said stale")
            .atMost(CONVERGE)
            .untilAsserted(
                () -> assertThat(m.staleReason()).contains("no capture has published to NATS"));
        assertThat(m.get(1)).isNull();

        capture = CaptureStandby.start(p.sourceConfig(), nats, "again");
        await("followed again").atMost(CONVERGE).until(() -> m.staleReason() == null);
        p.awaitMirrorEqualsTable(m, "wide");
        assertThat(m.get(1)).isNotNull();
      } finally {
        capture.close();
      }
    }
  }

  /** A server named edge that serves from the stream of {@code nats}. */
  static TablecastServer edge(NatsSettings nats) throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", "edge")
            .listen("127.0.0.1", 0)
            .set("nats", nats)
            .build());
  }

  /** NATS, the leader (its own JVM), a standby, a server of the stream and a client's mirror. */
  private static final class Rig implements AutoCloseable {
    final Pipeline p;
    final NatsServerProcess nats;
    final String stream;
    final Process leader;
    final int healthPort;
    final Path leaderLog;
    final InsertsOnce load = new InsertsOnce();
    CaptureStandby standby;
    TablecastServer server;
    TablecastClient client;
    TableMirror<Map<String, Object>> mirror;

    Rig(Kind kind, String name) throws Exception {
      this(kind, name, NatsScaleOutTest.MAX_PAYLOAD);
    }

    Rig(Kind kind, String name, long maxPayload) throws Exception {
      p = Pipeline.create(kind, name, List.of(InsertsOnce.DDL), "wide");
      nats = NatsServerProcess.start(maxPayload);
      stream = "TC_" + p.db.schema();
      try (ServerSocket free = new ServerSocket(0)) {
        healthPort = free.getLocalPort();
      }
      // under target/, not /tmp: kept for a failure's reading, gone with the build
      leaderLog = Files.createTempFile(Path.of("target"), "capture", ".log");
      leader = startCandidate();
      try {
        await()
            .atMost(CONVERGE)
            .alias("tablecast capture answers /health as the leader (its log: " + leaderLog + ")")
            .until(() -> "{\"status\":\"UP\",\"role\":\"leader\"}\n".equals(leaderHealth()));
        standby =
            CaptureStandby.start(
                p.sourceConfig(), settings().withCaptureTakeover(TAKEOVER), "second");
        server = edge(settings());
        client = NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port());
        mirror = p.readyMirror(client, "wide");
        load.listen(mirror);
      } catch (Exception | AssertionError e) {
        close();
        throw e;
      }
    }

    NatsSettings settings() {
      return new NatsSettings(List.of(nats.url()), stream, null, null, null);
    }

    /** {@code tablecast capture --config} in a JVM of its own, /health on {@link #healthPort}. */
    private Process startCandidate() throws Exception {
      Path yaml = Files.createTempFile(Path.of("target"), "capture", ".yaml");
      Files.writeString(
          yaml,
          "server_name: first\n"
              + "listen: { host: 127.0.0.1, port: "
              + healthPort
              + " }\n"
              + "source:\n  jdbc_url: \""
              + p.db.jdbcUrl()
              + "\"\n  install_triggers: true\n  reconcile_interval: 1s\n"
              + "  capture_check_interval: 1s\n"
              + "cached_tables: ["
              + p.db.table("wide")
              + "]\n"
              + "nats:\n  urls: ["
              + nats.url()
              + "]\n  stream: "
              + stream
              + "\n  capture_takeover: "
              + TAKEOVER.toMillis()
              + "ms\n");
      return new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp",
              System.getProperty("java.class.path"),
              TablecastCommand.class.getName(),
              "capture",
              "--config",
              yaml.toString())
          .redirectErrorStream(true)
          .redirectOutput(leaderLog.toFile())
          .start();
    }

    /** The leader's GET /health, or null while it does not answer. */
    String leaderHealth() {
      try {
        HttpResponse<String> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/health"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        return r.body();
      } catch (IOException e) {
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    @Override
    public void close() {
      leader.destroyForcibly();
      load.close();
      for (AutoCloseable c : new AutoCloseable[] {client, server, standby, nats, p}) {
        try {
          if (c != null) {
            c.close();
          }
        } catch (Exception e) {
          // closing the rest
        }
      }
    }
  }
}
