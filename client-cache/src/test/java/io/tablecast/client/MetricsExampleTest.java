package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tablecast.protocol.Message;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The metrics example of docs/CLIENT.md, compiled and run against the fake server, and the table of
 * meters there: it names every meter a bound client registers, with its type and tags, and nothing
 * else, and the Prometheus names it gives are those a scrape shows.
 */
class MetricsExampleTest {
  record Account(long id, String owner) {}

  // --- metrics example start (docs/CLIENT.md, "Metrics")
  static TablecastClient billingClient(String server, MeterRegistry registry) {
    TablecastClient client =
        TablecastClient.builder().servers(server).clientName("billing").build();
    new TablecastClientMetrics(client).bindTo(registry); // counters count from build() anyway
    client.mirror("shop.accounts", Account.class); // its meters come with its first mirror
    return client;
  }

  // --- metrics example end

  @Test
  void exampleFromTheDocsExposesTheMirrorsRows() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (FakeServer server = new FakeServer();
        TablecastClient client = billingClient(server.address(), registry)) {
      FakeServer.Conn conn = server.handshake(1);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          "shop.accounts",
          List.of("id"),
          1,
          row("id", 1, "owner", "a"),
          row("id", 2, "owner", "b"));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  registry
                      .scrape()
                      .contains(
                          "tablecast_client_mirror_rows{client=\"billing\",table=\"shop.accounts\"}"
                              + " 2.0"));
    }
  }

  @Test
  void theDocumentShowsThisExample() throws IOException {
    DocExamples.assertDocumentShows("\n## Metrics\n", MetricsExampleTest.class, "metrics");
  }

  /** A row of the table: `name` | `prometheus`, ... | type | `tag`, ... | meaning. */
  private static final Pattern ROW =
      Pattern.compile(
          "^\\| `(tablecast\\.client\\.[a-z.]+)` \\| ([^|]+) \\| (\\w+) \\| ([^|]*) \\|");

  private static final Pattern PROMETHEUS = Pattern.compile("tablecast_client_[a-z_]+");

  @Test
  void theMeterTableNamesEveryMeterWithItsTypeAndTagsAndItsPrometheusNames() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Set<String> registered = new TreeSet<>();
    try (FakeServer server = new FakeServer();
        TablecastClient client = billingClient(server.address(), registry)) {
      client.nearCache("shop.prices", NearCacheOptions.maximumRows(10)); // and its meters
      for (Meter m : registry.getMeters()) {
        registered.add(describe(m.getId().getName(), type(m), tagKeys(m)));
      }
      String doc = Files.readString(DocExamples.clientDoc());
      assertThat(doc).as("a section ## Metrics in docs/CLIENT.md").contains("\n## Metrics\n");
      String section = doc.substring(doc.indexOf("\n## Metrics\n"));
      section = section.substring(0, section.indexOf("\n## ", 1));
      Set<String> documented = new TreeSet<>();
      Set<String> prometheusNames = new TreeSet<>();
      for (String line : section.lines().toList()) {
        Matcher row = ROW.matcher(line);
        if (row.find()) {
          Set<String> tags = new TreeSet<>();
          Matcher tag = Pattern.compile("`(\\w+)`").matcher(row.group(4));
          while (tag.find()) {
            tags.add(tag.group(1));
          }
          documented.add(describe(row.group(1), row.group(3), tags));
          Matcher p = PROMETHEUS.matcher(row.group(2));
          while (p.find()) {
            prometheusNames.add(p.group());
          }
        }
      }
      assertThat(documented)
          .as("the meter table of docs/CLIENT.md (Metrics): name type [tags]")
          .containsExactlyInAnyOrderElementsOf(registered);
      Set<String> scraped = new TreeSet<>();
      Matcher p = PROMETHEUS.matcher(registry.scrape());
      while (p.find()) {
        scraped.add(p.group());
      }
      assertThat(scraped)
          .as("series of a scrape, for the table's Prometheus names")
          .containsAll(prometheusNames);
      assertThat(prometheusNames).hasSizeGreaterThanOrEqualTo(documented.size());
    }
  }

  private static String describe(String name, String type, Set<String> tags) {
    return name + " " + type + " " + tags;
  }

  private static String type(Meter m) {
    return switch (m.getId().getType()) {
      case GAUGE -> "gauge";
      case COUNTER -> "counter";
      case TIMER -> "timer";
      default -> m.getId().getType().name().toLowerCase(Locale.ROOT);
    };
  }

  private static Set<String> tagKeys(Meter m) {
    return m.getId().getTags().stream()
        .map(Tag::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
