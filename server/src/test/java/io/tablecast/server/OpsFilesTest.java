package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules under {@code ops/} name only series a server
 * exposes, from its start (before anything has happened: an alert on the increase of a repair
 * counter must see the first repair), and are well formed.
 */
class OpsFilesTest {
  private static final Path OPS = Path.of("..", "ops");
  private static final Pattern SERIES = Pattern.compile("\\btablecast_[a-z0-9_]+");

  @Test
  void everySeriesTheDashboardAndAlertsNameIsOnAFreshServer() throws Exception {
    Set<String> exposed = exposedSeries();
    Set<String> named = new TreeSet<>();
    for (Path file :
        List.of(
            OPS.resolve("grafana/tablecast-dashboard.json"),
            OPS.resolve("prometheus/tablecast-alerts.yml"))) {
      Matcher m = SERIES.matcher(Files.readString(file));
      while (m.find()) {
        named.add(m.group());
      }
    }
    assertThat(named).as("series named in ops/").hasSizeGreaterThan(15);
    assertThat(exposed).as("GET /metrics of a fresh server").containsAll(named);
  }

  @Test
  void everyAlertHasAnExpressionASeverityAndASummary() throws IOException {
    JsonNode rules =
        new YAMLMapper().readTree(OPS.resolve("prometheus/tablecast-alerts.yml").toFile());
    List<String> alerts = new ArrayList<>();
    for (JsonNode group : rules.get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        String name = rule.path("alert").asText();
        alerts.add(name);
        assertThat(rule.path("expr").asText())
            .as(name)
            .isNotBlank()
            .satisfies(OpsFilesTest::balanced);
        assertThat(rule.path("labels").path("severity").asText())
            .as(name)
            .isIn("warning", "critical");
        assertThat(rule.path("annotations").path("summary").asText()).as(name).isNotBlank();
      }
    }
    // what docs/OPERATIONS.md promises to alert on
    assertThat(alerts)
        .contains(
            "TablecastCaptureLagHigh",
            "TablecastSlowConsumers",
            "TablecastReconciliationRepaired",
            "TablecastOutboxGrowing",
            "TablecastTableStale",
            "TablecastTailBehind");
  }

  @Test
  void everyDashboardPanelHasAQueryAndAPlace() throws IOException {
    JsonNode dashboard =
        new ObjectMapper().readTree(OPS.resolve("grafana/tablecast-dashboard.json").toFile());
    assertThat(dashboard.path("uid").asText()).isEqualTo("tablecast");
    for (JsonNode panel : dashboard.get("panels")) {
      String title = panel.path("title").asText();
      assertThat(panel.path("gridPos").path("w").asInt()).as(title).isPositive();
      assertThat(panel.get("targets")).as(title).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        assertThat(target.path("expr").asText())
            .as(title)
            .contains("tablecast_")
            .satisfies(OpsFilesTest::balanced);
      }
    }
  }

  /** The names of the samples {@code GET /metrics} shows right after start. */
  private static Set<String> exposedSeries() throws Exception {
    FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
    try (TablecastServer server =
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
                    .build(),
                source);
        Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(reply).startsWith("HTTP/1.1 200 ");
      Set<String> names = new TreeSet<>();
      for (String line : reply.substring(reply.indexOf("\r\n\r\n") + 4).split("\n")) {
        Matcher m = SERIES.matcher(line);
        if (!line.startsWith("#") && m.lookingAt()) {
          names.add(m.group());
        }
      }
      return names;
    }
  }

  private static void balanced(String expr) {
    int depth = 0;
    for (char c : expr.toCharArray()) {
      depth += c == '(' || c == '{' || c == '[' ? 1 : c == ')' || c == '}' || c == ']' ? -1 : 0;
      assertThat(depth).as("brackets of %s", expr).isNotNegative();
    }
    assertThat(depth).as("brackets of %s", expr).isZero();
  }
}
