package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.net.TlsConfig;
import io.tablecast.server.net.TlsTestCerts;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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

  /** A label matcher of a selector: name, operator, value. */
  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The labels of a {@code by (...)} clause. */
  private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");

  @org.junit.jupiter.api.io.TempDir static Path certDir;

  /** Labels Prometheus adds when it scrapes. */
  private static final Set<String> SCRAPE_LABELS = Set.of("instance", "job");

  @Test
  void everySeriesTheDashboardAndAlertsNameIsOnAFreshServer() throws Exception {
    Map<String, Map<String, Set<String>>> exposed = exposedSeries();
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
    assertThat(exposed.keySet()).as("GET /metrics of a fresh server").containsAll(named);
  }

  /**
   * A query on a label the series lacks, or on a value it never has (a quantile the summary does
   * not publish), is empty: a panel without a line, an alert that never fires. Every label a query
   * groups by or matches on, and every value it matches exactly, is on the series in {@code
   * /metrics}; {@code instance} and {@code job} are the scrape's own.
   */
  @Test
  void everyLabelTheQueriesGroupByOrMatchIsOnTheirSeries() throws Exception {
    Map<String, Map<String, Set<String>>> exposed = exposedSeries();
    List<String> queries = new ArrayList<>();
    for (JsonNode panel :
        new ObjectMapper()
            .readTree(OPS.resolve("grafana/tablecast-dashboard.json").toFile())
            .get("panels")) {
      panel.get("targets").forEach(t -> queries.add(t.path("expr").asText()));
    }
    for (JsonNode group :
        new YAMLMapper()
            .readTree(OPS.resolve("prometheus/tablecast-alerts.yml").toFile())
            .get("groups")) {
      group.get("rules").forEach(r -> queries.add(r.path("expr").asText()));
    }
    assertThat(queries).hasSizeGreaterThan(20);
    List<String> wrong = new ArrayList<>();
    for (String query : queries) {
      Set<String> series = new TreeSet<>();
      Matcher m = SERIES.matcher(query);
      while (m.find()) {
        series.add(m.group());
        if (query.startsWith("{", m.end())) {
          String selector = query.substring(m.end() + 1, query.indexOf('}', m.end()));
          Matcher label = MATCHER.matcher(selector);
          while (label.find()) {
            Set<String> values = exposed.getOrDefault(m.group(), Map.of()).get(label.group(1));
            if (SCRAPE_LABELS.contains(label.group(1))) {
              continue;
            }
            if (values == null) {
              wrong.add(query + ": " + m.group() + " has no label " + label.group(1));
            } else if (label.group(2).equals("=") && !values.contains(label.group(3))) {
              wrong.add(
                  query
                      + ": "
                      + m.group()
                      + " never has "
                      + label.group(1)
                      + "="
                      + label.group(3)
                      + ", only "
                      + values);
            }
          }
        }
      }
      Matcher by = BY.matcher(query);
      while (by.find()) {
        for (String name : by.group(1).split(",")) {
          String l = name.trim();
          for (String s : series) {
            if (!SCRAPE_LABELS.contains(l) && !exposed.getOrDefault(s, Map.of()).containsKey(l)) {
              wrong.add(query + ": " + s + " has no label " + l);
            }
          }
        }
      }
    }
    assertThat(wrong).as("queries on labels or values /metrics does not have").isEmpty();
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
    // what docs/OPERATIONS.md's table of alerts promises, and no more
    Set<String> documented = new TreeSet<>();
    Matcher row =
        Pattern.compile("(?m)^\\| `(Tablecast[A-Za-z]+)` \\|")
            .matcher(Files.readString(Path.of("..", "docs", "OPERATIONS.md")));
    while (row.find()) {
      documented.add(row.group(1));
    }
    assertThat(documented).as("alerts in docs/OPERATIONS.md").hasSizeGreaterThan(7);
    assertThat(new TreeSet<>(alerts)).isEqualTo(documented);
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

  /**
   * The series {@code GET /metrics} shows right after start, by name (without {@code _count},
   * {@code _sum}... for a summary only when it has them): their labels and the values each takes.
   */
  private static Map<String, Map<String, Set<String>>> exposedSeries() throws Exception {
    FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
    // with tls: (plaintext allowed, for the request below), whose certificate has a gauge
    TlsTestCerts certs = TlsTestCerts.create(certDir);
    TlsConfig tls =
        new TlsConfig(certs.serverCert, certs.serverKey, null, TlsConfig.ClientAuth.NONE, true);
    try (TablecastServer server = TablecastServers.startWithTls("ops-files", tls, source);
        Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(reply).startsWith("HTTP/1.1 200 ");
      Map<String, Map<String, Set<String>>> series = new TreeMap<>();
      for (String line : reply.substring(reply.indexOf("\r\n\r\n") + 4).split("\n")) {
        Matcher m = SERIES.matcher(line);
        if (!line.startsWith("#") && m.lookingAt()) {
          Map<String, Set<String>> labels = series.computeIfAbsent(m.group(), n -> new TreeMap<>());
          if (line.startsWith("{", m.end())) {
            Matcher label = MATCHER.matcher(line.substring(m.end() + 1, line.indexOf('}')));
            while (label.find()) {
              labels.computeIfAbsent(label.group(1), l -> new TreeSet<>()).add(label.group(3));
            }
          }
        }
      }
      return series;
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
