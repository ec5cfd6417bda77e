package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Capture high availability (docs/SCALE-OUT.md): two {@code capture} candidates per database, the
 * leader in a JVM of its own killed with SIGKILL while rows are inserted; the standby takes over
 * within the takeover time, and the client sees every insert exactly once.
 */
class NatsCaptureFailoverTest {
  static final Duration TAKEOVER = Duration.ofSeconds(2);
  static final Duration CONVERGE = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKilledCaptureLeaderIsReplacedByTheStandbyLosingAndRepeatingNothing(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natsfailover", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      String stream = "TC_" + p.db.schema();
      Process leader = startCandidate(p, n, stream, "first");
      ExecutorService writer = Executors.newSingleThreadExecutor();
      CaptureStandby standby = null;
      try {
        assertThat(firstLine(leader)).isEqualTo("LEADING");
        standby =
            CaptureStandby.start(
                p.sourceConfig(),
                new NatsSettings(List.of(n.url()), stream, null, null, null)
                    .withCaptureTakeover(TAKEOVER),
                "second");
        try (TablecastServer server =
                TablecastServer.start(
                    ServerConfig.builder()
                        .set("server_name", "edge")
                        .listen("127.0.0.1", 0)
                        .set("nats", new NatsSettings(List.of(n.url()), stream, null, null, null))
                        .build());
            TablecastClient client =
                NatsScaleOutTest.client("reader", "127.0.0.1:" + server.port())) {
          TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
          Map<Object, AtomicInteger> inserts = new ConcurrentHashMap<>();
          m.addListener(
              e -> {
                if (e.op() == ChangeType.INSERT) {
                  inserts.computeIfAbsent(e.key(), k -> new AtomicInteger()).incrementAndGet();
                }
              });
          AtomicBoolean stop = new AtomicBoolean();
          AtomicInteger written = new AtomicInteger();
          Future<?> writes =
              writer.submit(
                  () -> {
                    for (int id = 1000; !stop.get(); id++) {
                      p.sql("INSERT INTO accounts VALUES (" + id + ", 'row " + id + "', 0)");
                      written.incrementAndGet();
                      TimeUnit.MILLISECONDS.sleep(5);
                    }
                    return null;
                  });
          await().atMost(CONVERGE).until(() -> inserts.size() >= 20);
          assertThat(standby.leading()).as("the standby waits while the leader runs").isFalse();

          leader.destroyForcibly().waitFor(); // SIGKILL: no lease released, nothing closed
          long killedAt = System.nanoTime();
          await().atMost(CONVERGE).until(standby::leading);
          Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
          System.out.printf(
              "%s: the standby published %d ms after the kill%n", kind, takeover.toMillis());
          int before = inserts.size();
          await().atMost(CONVERGE).until(() -> inserts.size() >= before + 20);
          stop.set(true);
          writes.get();

          TransferWorkload.awaitConverged(p, m, CONVERGE);
          await().atMost(CONVERGE).until(() -> inserts.size() == written.get());
          assertThat(inserts.values())
              .as("every insert reached the client exactly once across the takeover")
              .allMatch(c -> c.get() == 1);
          assertThat(takeover)
              .as("the standby took over within the takeover time and its start")
              .isLessThan(TAKEOVER.plusSeconds(10));
          assertThat(standby.terms()).isEqualTo(1);
        }
      } finally {
        leader.destroyForcibly();
        writer.shutdownNow();
        if (standby != null) {
          standby.close();
        }
      }
    }
  }

  private static Process startCandidate(Pipeline p, NatsServerProcess n, String stream, String name)
      throws Exception {
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            CaptureProcessMain.class.getName(),
            p.db.jdbcUrl(),
            "accounts",
            n.url(),
            stream,
            Long.toString(TAKEOVER.toMillis()),
            name)
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  private static String firstLine(Process process) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    return out.readLine();
  }
}
