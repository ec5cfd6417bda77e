package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.WebSocketHandshakes;
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
 * {@code metrics_token} and {@code allowed_origins} changed in the configuration file while the
 * server serves ({@link ConfigFileWatch}): a rotated token is the one {@code /metrics} and the
 * console take from then on, and the origins listed are those whose pages may open a WebSocket
 * session. Before, both waited for a restart (a WARN said so), which sends every client of every
 * table back to a snapshot. A token added or removed whole waits for the next start, as an {@code
 * auth} section does: {@code /metrics} is not opened, nor closed, while the server serves.
 */
class WebAccessReloadTest {
  private static final String FIRST = "first-token-0123456789";
  private static final String SECOND = "second-token-0123456789";

  @TempDir Path dir;
  private TablecastServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aRotatedMetricsTokenAndOtherAllowedOriginsApplyWithoutARestart() throws Exception {
    ConfigFileWatch watch =
        serve("metrics_token: " + FIRST, "allowed_origins: [https://app.example]");
    assertThat(get("/metrics", FIRST)).isEqualTo(200);
    assertThat(get("/metrics", SECOND)).isEqualTo(401);
    assertThat(get("/console/api/server", FIRST)).isEqualTo(200);
    assertThat(WebSocketHandshakes.status(server.port(), "https://app.example")).isEqualTo(101);
    assertThat(WebSocketHandshakes.status(server.port(), "https://new.example")).isEqualTo(403);

    long since = System.currentTimeMillis();
    write("metrics_token: " + SECOND, "allowed_origins: [https://new.example]", "heartbeat: 2s");
    watch.check();

    assertThat(get("/metrics", FIRST)).as("the old token").isEqualTo(401);
    assertThat(get("/metrics", SECOND)).isEqualTo(200);
    assertThat(get("/console/api/server", FIRST)).isEqualTo(401);
    assertThat(get("/console/api/server", SECOND)).isEqualTo(200);
    assertThat(WebSocketHandshakes.status(server.port(), "https://new.example")).isEqualTo(101);
    assertThat(WebSocketHandshakes.status(server.port(), "https://app.example")).isEqualTo(403);
    assertThat(warnedSince(since, "changed heartbeat: it takes effect at the next start"))
        .as("only what waits is said to wait")
        .isTrue();
    assertThat(warnedSince(since, "metrics_token (")).isFalse();
  }

  @Test
  void aMetricsTokenAddedWaitsForTheNextStart() throws Exception {
    ConfigFileWatch watch = serve("heartbeat: 1s");
    long since = System.currentTimeMillis();
    write("metrics_token: " + FIRST, "allowed_origins: ['*']");
    watch.check();
    assertThat(get("/metrics", null)).as("still open").isEqualTo(200);
    assertThat(warnedSince(since, "changed metrics_token (added): it takes effect at the next"))
        .isTrue();
    assertThat(WebSocketHandshakes.status(server.port(), "https://any.example"))
        .as("the origins applied all the same")
        .isEqualTo(101);
  }

  @Test
  void aMetricsTokenRemovedWaitsForTheNextStart() throws Exception {
    ConfigFileWatch watch = serve("metrics_token: " + FIRST);
    write("heartbeat: 1s");
    watch.check();
    assertThat(get("/metrics", null)).as("still closed").isEqualTo(401);
    assertThat(get("/metrics", FIRST)).isEqualTo(200);
    write("metrics_token: " + SECOND);
    watch.check();
    assertThat(get("/metrics", SECOND)).as("rotated after all").isEqualTo(200);
  }

  private ConfigFileWatch serve(String... lines) throws Exception {
    Path file = write(lines);
    ServerConfig loaded = ServerConfig.load(file);
    server = TablecastServers.start(loaded, new FakeChangeSource().withTable(table("products"), 3));
    return ConfigFileWatch.unscheduled(file, loaded, server);
  }

  private Path write(String... lines) throws Exception {
    return Files.writeString(
        dir.resolve("tablecast.yaml"),
        String.join(
            "\n",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source: { jdbc_url: 'jdbc:postgresql://fake/app' }",
            "cached_tables: [public.products]",
            String.join("\n", lines),
            ""));
  }

  private int get(String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient()
        .send(b.build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static boolean warnedSince(long since, String text) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.timeMillis() >= since && e.message().contains(text));
  }
}
