package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** GET /health, /metrics and static files on the binary port, over loopback with raw requests. */
class HttpEndpointsTest {

  @TempDir Path tmp;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    Path web = Files.createDirectories(tmp.resolve("web"));
    Files.writeString(web.resolve("index.html"), "<html>hello</html>");
    Files.writeString(web.resolve("app.js"), "export const x = 1;");
    Files.createDirectories(web.resolve("sub"));
    Files.writeString(web.resolve("sub/style.css"), "body{}");
    Path client = Files.createDirectories(tmp.resolve("client"));
    Files.writeString(client.resolve("tablecast.mjs"), "export class C {}");
    Files.writeString(tmp.resolve("secret.txt"), "TOP SECRET");
    FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
    server =
        TablecastServers.start(
            ServerConfig.builder()
                .listen("127.0.0.1", 0)
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of("public.products"),
                        false,
                        null,
                        null))
                .set("static_dir", web)
                .set("static_client_dir", client)
                .build(),
            source);
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  /**
   * Sends a raw request (the path exactly as given, nothing normalized) and reads the whole reply.
   */
  private String request(String method, String path) throws IOException {
    return request(method, path, "");
  }

  /** A request with extra header lines, each ending in CRLF. */
  private String request(String method, String path, String headers) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              (method
                      + " "
                      + path
                      + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                      + headers
                      + "\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String body(String reply) {
    return reply.substring(reply.indexOf("\r\n\r\n") + 4);
  }

  @Test
  void healthSaysOnlyTheStatusToAnyone() throws Exception {
    String r = request("GET", "/health");
    assertThat(r)
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: application/json");
    // unauthenticated: no table names, positions or client counts
    assertThat(body(r)).isEqualTo("{\"status\":\"UP\"}\n");
  }

  /**
   * Every meter of a server that /metrics shows has its row in docs/PROTOCOL.md's metrics table
   * ({@code tablecast.tail.rows} was shown, charted on the dashboard and never documented), and
   * every row names a meter a server has, at start or once it counts something (the NATS capture's
   * meters are SCALE-OUT.md's).
   */
  @Test
  void everyMeterOnMetricsHasItsRowInTheDocsAndEveryRowAMeter() throws Exception {
    Set<String> documented = new TreeSet<>();
    Matcher row =
        Pattern.compile("(?m)^\\| `(tablecast\\.[a-z.]+)` \\|")
            .matcher(Files.readString(Path.of("..", "docs", "PROTOCOL.md")));
    while (row.find()) {
      documented.add(row.group(1).replace('.', '_'));
    }
    Set<String> shown = new TreeSet<>();
    for (String line : body(request("GET", "/metrics")).split("\n")) {
      if (line.startsWith("# TYPE tablecast_")) {
        shown.add(line.split(" ")[2].replaceFirst("(_total|_seconds_max|_seconds|_max)$", ""));
      }
    }
    assertThat(shown).as("meters on /metrics").isNotEmpty();
    assertThat(documented).as("rows of PROTOCOL.md's metrics table").containsAll(shown);
    Set<String> notShownYet = new TreeSet<>(documented);
    notShownYet.removeAll(shown);
    assertThat(notShownYet)
        .as("documented meters a server shows only once they count something")
        .containsExactlyInAnyOrder(
            "tablecast_auth_failures", // per refusal reason
            "tablecast_capture_problems", // per table and kind of problem
            "tablecast_fetch_keys", // per outcome of near caches' requests
            "tablecast_outbox_gaps", // MySQL/MariaDB's tail alone
            "tablecast_tls_certificate_expiry"); // with tls: (TlsReloadTest)
  }

  @Test
  void metricsArePrometheusText() throws Exception {
    String r = request("GET", "/metrics");
    assertThat(r)
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: text/plain; version=0.0.4; charset=utf-8");
    assertThat(body(r))
        .contains("# TYPE tablecast_clients gauge")
        .contains("tablecast_clients 0.0")
        .contains("tablecast_changes_total")
        .contains("tablecast_batches_total")
        .contains("tablecast_lag_seconds")
        .contains("tablecast_tail_poll_changes")
        .contains("tablecast_tail_caught_up_age_seconds")
        .contains("tablecast_tail_reads_total")
        .contains("tablecast_capture_lag_seconds{table=");
  }

  @Test
  void metricsTokenIsRequiredAsABearerTokenWhenConfigured() throws Exception {
    String token = "0123456789abcdef-metrics";
    server.close();
    server =
        TablecastServers.start(
            ServerConfig.builder()
                .listen("127.0.0.1", 0)
                .set("metrics_token", token)
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of("public.products"),
                        false,
                        null,
                        null))
                .build(),
            new FakeChangeSource().withTable(table("products"), 3));
    String none = request("GET", "/metrics");
    assertThat(none).startsWith("HTTP/1.1 401 ").containsIgnoringCase("www-authenticate: Bearer");
    assertThat(body(none))
        .contains("metrics_token")
        .doesNotContain("tablecast_")
        .doesNotContain(token);
    assertThat(request("GET", "/metrics", "Authorization: Bearer " + token + "x\r\n"))
        .startsWith("HTTP/1.1 401 ");
    assertThat(request("GET", "/metrics", "Authorization: Basic " + token + "\r\n"))
        .startsWith("HTTP/1.1 401 ");
    String ok = request("GET", "/metrics", "Authorization: bearer " + token + "\r\n");
    assertThat(ok).startsWith("HTTP/1.1 200 ");
    assertThat(body(ok)).contains("# TYPE tablecast_clients gauge");
    assertThat(request("GET", "/health")).as("health stays open").startsWith("HTTP/1.1 200 ");
  }

  @Test
  void staticFilesWithContentTypesAndIndex() throws Exception {
    String index = request("GET", "/");
    assertThat(index)
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: text/html; charset=utf-8");
    assertThat(body(index)).isEqualTo("<html>hello</html>");
    assertThat(request("GET", "/app.js"))
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: text/javascript");
    assertThat(request("GET", "/sub/style.css?v=1"))
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: text/css");
    String client = request("GET", "/client/tablecast.mjs");
    assertThat(client)
        .startsWith("HTTP/1.1 200 ")
        .containsIgnoringCase("content-type: text/javascript");
    assertThat(body(client)).isEqualTo("export class C {}");
    String head = request("HEAD", "/app.js");
    assertThat(head).startsWith("HTTP/1.1 200 ");
    assertThat(body(head)).isEmpty();
  }

  @Test
  void noDirectoryListing() throws Exception {
    assertThat(request("GET", "/sub/")).startsWith("HTTP/1.1 404 ");
    assertThat(request("GET", "/client/")).startsWith("HTTP/1.1 404 ");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/../etc/passwd",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/%2E%2E%2Fsecret.txt",
        "/../secret.txt",
        "/sub/../../secret.txt",
        "/client/../secret.txt",
        "/client/%2e%2e/secret.txt",
        "/..%5csecret.txt",
        "/%252e%252e/secret.txt",
        "/%00/../secret.txt",
        "//etc/passwd"
      })
  void pathTraversalIsRefused(String path) throws Exception {
    String r = request("GET", path);
    assertThat(r).matches("(?s)HTTP/1\\.1 (400|403|404) .*");
    assertThat(r).doesNotContain("TOP SECRET").doesNotContain("root:");
  }

  @Test
  void unknownPathIs404AndOtherMethodsAre405() throws Exception {
    assertThat(request("GET", "/nope.html")).startsWith("HTTP/1.1 404 ");
    String post = request("POST", "/health");
    assertThat(post).startsWith("HTTP/1.1 405 ").containsIgnoringCase("allow: GET, HEAD");
    assertThat(request("DELETE", "/app.js")).startsWith("HTTP/1.1 405 ");
  }

  @Test
  void keepAliveServesSeveralRequestsOnOneConnection() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              ("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                      + "GET /app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(all).contains("\"status\":\"UP\"").contains("export const x = 1;");
    }
  }
}
