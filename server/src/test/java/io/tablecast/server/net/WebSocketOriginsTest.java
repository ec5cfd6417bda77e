package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.WebSocketHandshakes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A browser lets a page of any site open a WebSocket to any address it can reach, and says which
 * site in {@code Origin}. Before, the server accepted every one: a page of any site an employee
 * opened could read every table of a server without {@code auth} through that employee's browser.
 * Now only the server's own pages, the origins {@code allowed_origins} lists, and programs that
 * send no {@code Origin} may open a session (docs/SECURITY.md, Browsers).
 */
class WebSocketOriginsTest {

  @Test
  void onlyTheServersOwnPagesAndProgramsWithoutAnOriginMayOpenASessionByDefault() throws Exception {
    try (TablecastServer server = serve(null)) {
      String own = "http://127.0.0.1:" + server.port();
      assertThat(opens(server, null)).as("a program, no Origin").isEqualTo(101);
      assertThat(opens(server, own)).as("the server's own page").isEqualTo(101);
      assertThat(opens(server, own.toUpperCase(java.util.Locale.ROOT))).isEqualTo(101);
      assertThat(opens(server, "http://evil.example")).as("another site").isEqualTo(403);
      assertThat(opens(server, "http://127.0.0.1:1")).as("another port").isEqualTo(403);
      assertThat(opens(server, "https://127.0.0.1:" + server.port()))
          .as("another scheme: another origin")
          .isEqualTo(403);
      assertThat(opens(server, "null")).as("a sandboxed frame or a file").isEqualTo(403);
      assertThat(
              RecentEvents.global().newestFirst().stream()
                  .anyMatch(
                      e ->
                          e.message().contains("http://evil.example")
                              && e.message().contains("allowed_origins")))
          .as("the refusal logged, naming the setting")
          .isTrue();
      assertThat(server.metrics().limitRefusals("allowed_origins")).as("and counted").isEqualTo(4);
    }
  }

  @Test
  void theOriginsAllowedOriginsListsMayOpenASessionAndAStarAnyOrigin() throws Exception {
    try (TablecastServer server = serve(List.of("https://app.example", "http://localhost:5173"))) {
      assertThat(opens(server, "https://app.example")).isEqualTo(101);
      assertThat(opens(server, "https://APP.example:443")).as("the same origin").isEqualTo(101);
      assertThat(opens(server, "http://localhost:5173")).isEqualTo(101);
      assertThat(opens(server, "http://app.example")).isEqualTo(403);
      assertThat(opens(server, "https://evil.example")).isEqualTo(403);
    }
    try (TablecastServer server = serve(List.of("*"))) {
      assertThat(opens(server, "https://evil.example")).isEqualTo(101);
      assertThat(opens(server, "null")).isEqualTo(101);
    }
  }

  @Test
  void anEntryThatIsNotAnOriginIsRefusedNamingIt() {
    for (String bad : List.of("https://app.example/", "app.example", "ftp://app.example", "")) {
      assertThatThrownBy(() -> config(List.of(bad)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("allowed_origins: " + bad + " is not an origin");
    }
  }

  @Test
  void theVariableListsOriginsSeparatedByCommas(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path yaml = dir.resolve("tablecast.yaml");
    java.nio.file.Files.writeString(
        yaml,
        "source:\n  jdbc_url: jdbc:postgresql://db/app\ncached_tables: [public.products]\n"
            + "allowed_origins: [https://file.example]\n");
    assertThat(
            ServerConfig.load(
                    yaml,
                    java.util.Map.of(
                        "TABLECAST_ALLOWED_ORIGINS", " https://app.example, http://localhost:5173"))
                .allowedOrigins())
        .as("the variable over the file")
        .containsExactly("https://app.example", "http://localhost:5173");
    assertThat(ServerConfig.load(yaml, java.util.Map.of()).allowedOrigins())
        .containsExactly("https://file.example");
  }

  private static int opens(TablecastServer server, String origin) throws Exception {
    return WebSocketHandshakes.status(server.port(), origin);
  }

  private static TablecastServer serve(List<String> allowed) throws InterruptedException {
    return TablecastServers.start(
        config(allowed), new FakeChangeSource().withTable(table("products"), 3));
  }

  private static ServerConfig config(List<String> allowed) {
    ServerConfig.Builder b =
        ServerConfig.builder()
            .set("server_name", "origins")
            .listen("127.0.0.1", 0)
            .source(
                new SourceConfig(
                    "jdbc:postgresql://fake/app",
                    null,
                    null,
                    List.of("public.products"),
                    false,
                    null,
                    null));
    if (allowed != null) {
      b.set("allowed_origins", allowed);
    }
    return b.build();
  }
}
