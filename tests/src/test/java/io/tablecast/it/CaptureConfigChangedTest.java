package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.ConfigFileWatch;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/tablecast capture} takes a {@code metrics_token} rotated in its configuration file
 * while it runs (docs/CONFIGURATION.md, "Changed while serving"): Prometheus scrapes with the new
 * token, the old one is refused, and the same process goes on leading. Before, capture read its
 * file at start only: the old token was the one until a restart, which hands the stream to a
 * standby.
 */
class CaptureConfigChangedTest {
  private static final String FIRST = "first-capture-token-0123";
  private static final String SECOND = "second-capture-token-0123";

  @TempDir Path dir;

  @Test
  void aMetricsTokenRotatedInTheFileIsTakenWhileCaptureLeads() throws Exception {
    try (Pipeline p =
            Pipeline.create(
                Kind.POSTGRESQL,
                "capture_cfg",
                List.of("CREATE TABLE items (id INT PRIMARY KEY, v TEXT)"),
                "items");
        NatsServerProcess nats = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      int port;
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
      Path cfg = dir.resolve("capture.yaml");
      Files.writeString(cfg, config(p, nats, port, FIRST));
      try (ServeProcess capture = ServeProcess.capture(cfg, dir.resolve("capture.log"))) {
        await()
            .atMost(Duration.ofSeconds(60))
            .alias("capture leads (its log: " + capture.log() + ")")
            .until(() -> metrics(port, FIRST).contains("tablecast_capture_leader 1.0"));
        assertThat(status(port, SECOND)).isEqualTo(401);

        Files.writeString(cfg, config(p, nats, port, SECOND));
        await()
            .atMost(ConfigFileWatch.CHECK_EVERY.plusSeconds(25))
            .alias("the new token, without a restart")
            .until(() -> status(port, SECOND) == 200);
        assertThat(status(port, FIRST)).as("the old token").isEqualTo(401);
        assertThat(metrics(port, SECOND))
            .as("the same term of the same process")
            .contains("tablecast_capture_leader 1.0", "tablecast_capture_terms_total 1.0");
        assertThat(capture.isAlive()).isTrue();
        assertThat(capture.log()).doesNotContain("at the next start");
      }
    }
  }

  private static String config(Pipeline p, NatsServerProcess nats, int port, String token) {
    return String.join(
        "\n",
        "server_name: capture-cfg",
        "listen: { host: 127.0.0.1, port: " + port + " }",
        "metrics_token: " + token,
        "source:",
        "  jdbc_url: '" + p.db.jdbcUrl() + "'",
        "  install_triggers: true",
        "cached_tables: [" + p.db.table("items") + "]",
        "nats:",
        "  urls: [" + nats.url() + "]",
        "  stream: TC_" + p.db.schema(),
        "");
  }

  private static HttpResponse<String> get(int port, String token)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .header("Authorization", "Bearer " + token)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static int status(int port, String token) throws IOException, InterruptedException {
    return get(port, token).statusCode();
  }

  /** The metrics, or "" while capture does not answer yet. */
  private static String metrics(int port, String token) throws InterruptedException {
    try {
      HttpResponse<String> r = get(port, token);
      return r.statusCode() == 200 ? r.body() : "";
    } catch (IOException e) {
      return "";
    }
  }
}
