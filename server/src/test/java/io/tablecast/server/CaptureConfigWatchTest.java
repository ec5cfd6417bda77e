package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.stream.CaptureEndpoints;
import io.tablecast.server.stream.CaptureState;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration file of {@code tablecast capture} changed while it runs ({@link
 * CaptureConfigWatch}): a rotated {@code metrics_token} is the one {@code /metrics} takes from then
 * on (before, the old token until a restart, which hands the stream to a standby); a change to a
 * key capture reads is said to wait for the next start, and the keys only {@code serve} reads are
 * not mentioned.
 */
class CaptureConfigWatchTest {
  private static final String FIRST = "first-token-0123456789";
  private static final String SECOND = "second-token-0123456789";
  private static final String SOURCE =
      "source: {jdbc_url: 'jdbc:postgresql://127.0.0.1:5432/test'}\ncached_tables: [public.t]";
  private static final String NATS = "nats: {urls: ['nats://127.0.0.1:4222'], stream: TC_a}";

  /** A waiting capture: /metrics answers whatever its role. */
  private static final CaptureState STANDBY =
      new CaptureState() {
        @Override
        public boolean leading() {
          return false;
        }

        @Override
        public int terms() {
          return 0;
        }

        @Override
        public long lastSequence() {
          return 0;
        }

        @Override
        public boolean waitingForNats() {
          return false;
        }

        @Override
        public String problem() {
          return null;
        }
      };

  @TempDir Path dir;
  private CaptureEndpoints endpoints;

  @AfterEach
  void stop() {
    if (endpoints != null) {
      endpoints.close();
    }
  }

  @Test
  void aRotatedMetricsTokenAppliesWithoutARestartAndOtherKeysWait() throws Exception {
    CaptureConfigWatch watch = capture("metrics_token: " + FIRST, SOURCE, NATS, "heartbeat: 1s");
    assertThat(get(FIRST)).isEqualTo(200);
    assertThat(get(SECOND)).isEqualTo(401);

    long since = System.currentTimeMillis();
    write(
        "metrics_token: " + SECOND,
        SOURCE,
        "nats: {urls: ['nats://127.0.0.1:4223'], stream: TC_a}",
        "heartbeat: 2s");
    assertThat(watch.check()).isTrue();

    assertThat(get(FIRST)).as("the old token").isEqualTo(401);
    assertThat(get(SECOND)).isEqualTo(200);
    assertThat(warnedSince(since, "changed nats: it takes effect at the next start of capture"))
        .as("what capture reads and cannot apply now is said to wait, and only that")
        .isTrue();
    assertThat(warnedSince(since, "heartbeat")).as("a key only serve reads").isFalse();
    assertThat(watch.check()).as("nothing changed since").isFalse();
  }

  @Test
  void aMetricsTokenAddedOrRemovedWaitsForTheNextStart() throws Exception {
    CaptureConfigWatch watch = capture(SOURCE, NATS);
    long since = System.currentTimeMillis();
    write("metrics_token: " + FIRST, SOURCE, NATS);
    assertThat(watch.check()).isFalse();
    assertThat(get(null)).as("still open").isEqualTo(200);
    assertThat(warnedSince(since, "changed metrics_token (added): it takes effect at the next"))
        .isTrue();
  }

  @Test
  void aFileThatCannotBeUsedChangesNothing() throws Exception {
    CaptureConfigWatch watch = capture("metrics_token: " + FIRST, SOURCE, NATS);
    long since = System.currentTimeMillis();
    write("metrics_token: " + SECOND, SOURCE, "nats: {urls: [");
    assertThat(watch.check()).isFalse();
    assertThat(get(FIRST)).isEqualTo(200);
    assertThat(warnedSince(since, "changed but cannot be used")).isTrue();
  }

  private CaptureConfigWatch capture(String... lines) throws Exception {
    Path file = write(lines);
    ServerConfig loaded = ServerConfig.load(file);
    endpoints =
        CaptureEndpoints.start("127.0.0.1", 0, STANDBY, WatchedConfigFile.metricsToken(loaded));
    return CaptureConfigWatch.unscheduled(file, loaded, endpoints);
  }

  private Path write(String... lines) throws Exception {
    return Files.writeString(dir.resolve("capture.yaml"), String.join("\n", lines) + "\n");
  }

  private int get(String token) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoints.port() + "/metrics"));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient()
        .send(r.build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static boolean warnedSince(long since, String text) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.timeMillis() >= since && e.message().contains(text));
  }
}
