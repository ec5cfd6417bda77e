package io.tablecast.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import io.tablecast.spring.boot.MirrorsNotReadyException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example service against a real Tablecast server on a real PostgreSQL table: products served
 * over HTTP from the mirror, changes seen without a restart, readiness only once the mirror is
 * ready, health and metrics, a refused table failing startup, and the client closed on shutdown.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ProductServiceApplicationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @LocalServerPort int port;
  @Autowired TableMirror<Product> products;
  @Autowired ApplicationAvailability availability;
  @Autowired MeterRegistry meters;
  @Autowired Observed observed;

  @DynamicPropertySource
  static void tablecast(DynamicPropertyRegistry properties) {
    properties.add("tablecast.client.servers", ProductsServer::address);
    properties.add("tablecast.client.mirrors.products.table", ProductsServer::table);
  }

  @AfterAll
  static void stopServer() {
    ProductsServer.stop();
  }

  @Test
  void productsAreServedByKeyFromTheMirror() throws Exception {
    JsonNode espresso = JSON.readTree(get("/products/1").body());
    assertThat(espresso.path("name").asText()).isEqualTo("Espresso");
    assertThat(espresso.path("price").decimalValue()).isEqualByComparingTo("2.50");
    // in_stock reached inStock through the application's SNAKE_CASE mapper (the client's own would
    // leave false)
    assertThat(espresso.path("in_stock").asBoolean()).isTrue();
    assertThat(JSON.readTree(get("/products/3").body()).path("in_stock").asBoolean()).isFalse();
    assertThat(get("/products/99").statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(get("/products").body()).findValuesAsText("name"))
        .startsWith("Espresso", "Green tea", "Croissant");
  }

  @Test
  void aCommittedChangeIsServedWithoutARestart() {
    ProductsServer.execute(
        "UPDATE products SET price = 4.40 WHERE id = 2",
        "INSERT INTO products VALUES (40, 'Matcha', 5.10, true)");
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(JSON.readTree(get("/products/2").body()).path("price").decimalValue())
                  .isEqualByComparingTo("4.40");
              assertThat(get("/products/40").statusCode()).isEqualTo(200);
            });
  }

  @Test
  void theApplicationReportedReadyOnlyOnceItsMirrorWas() throws Exception {
    assertThat(observed.mirrorWhenAcceptingTraffic).containsExactly("ready with 3 rows");
    assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
    HttpResponse<String> readiness = get("/actuator/health/readiness");
    assertThat(readiness.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(readiness.body()).path("status").asText()).isEqualTo("UP");
  }

  @Test
  void healthAndMetricsShowTheConnectionAndTheMirror() throws Exception {
    JsonNode health = JSON.readTree(get("/actuator/health/tablecast").body());
    assertThat(health.path("status").asText()).isEqualTo("UP");
    assertThat(health.at("/details/connected").asBoolean()).isTrue();
    JsonNode mirror = health.at("/details/mirrors/products");
    assertThat(mirror.path("table").asText()).isEqualTo(ProductsServer.table());
    assertThat(mirror.path("ready").asBoolean()).isTrue();
    assertThat(mirror.path("rows").asInt()).isGreaterThanOrEqualTo(3);
    assertThat(mirror.path("position").asLong()).isNotNegative();
    // once a transaction came, how long it took from the database to the mirror
    ProductsServer.execute("INSERT INTO products VALUES (41, 'Lag probe', 1.00, true)");
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        JSON.readTree(get("/actuator/health/tablecast").body())
                            .at("/details/mirrors/products/lagMillis")
                            .isNumber())
                    .isTrue());
    // the client's meters, bound by Actuator: the transaction's lag and change were recorded
    String table = ProductsServer.table();
    Timer lag = meters.get("tablecast.client.lag").tag("table", table).timer();
    await().atMost(Duration.ofSeconds(20)).until(() -> lag.count() >= 1);
    assertThat(lag.max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(0);
    assertThat(meters.get("tablecast.client.changes").tag("table", table).functionCounter().count())
        .isGreaterThanOrEqualTo(1);

    assertThat(meters.get("tablecast.client.connected").gauge().value()).isEqualTo(1);
    assertThat(meters.get("tablecast.client.mirror.rows").tag("table", table).gauge().value())
        .isEqualTo(products.size());
    assertThat(get("/actuator/metrics/tablecast.client.mirror.ready").statusCode()).isEqualTo(200);
    List<String> names =
        meters.getMeters().stream()
            .map(meter -> meter.getId().getName())
            .filter(name -> name.startsWith("tablecast.client."))
            .distinct()
            .toList();
    assertThat(names).hasSizeGreaterThanOrEqualTo(7);
    String doc = Files.readString(SpringBootDocTest.ROOT.resolve("docs/CLIENT.md"));
    assertThat(names)
        .allSatisfy(
            name ->
                assertThat(doc).as("docs/CLIENT.md names the meter").contains("`" + name + "`"));
  }

  @Test
  void theApplicationsConnectionListenerHeardTheFirstConnection() {
    assertThat(observed.connectedTo).contains(ProductsServer.address());
  }

  @Test
  void aTableTheServerRefusesFailsStartupNamingIt() {
    String table = ProductsServer.table().replace(".products", ".no_such_table");
    // a start that succeeds closes again, and causeOfType fails the test
    Throwable thrown =
        catchThrowable(
            () -> runAnother("tablecast.client.mirrors.products.table=" + table).close());
    MirrorsNotReadyException failure = causeOfType(thrown, MirrorsNotReadyException.class);
    assertThat(failure.notReady()).containsOnlyKeys(table);
    assertThat(failure.notReady().get(table)).contains("UNKNOWN_TABLE");
  }

  @Test
  void closingTheApplicationClosesTheClient() throws Exception {
    ConfigurableApplicationContext context = runAnother();
    TablecastClient client = context.getBean(TablecastClient.class);
    TableMirror<?> mirror = context.getBean("products", TableMirror.class);
    assertThat(mirror.isReady()).isTrue();
    context.close();
    assertThat(mirror.isReady()).isFalse();
    try {
      client.mirror(ProductsServer.table());
      throw new AssertionError("the client is still open after the application closed");
    } catch (TablecastException expected) {
      assertThat(expected).hasMessageContaining("closed");
    }
  }

  /**
   * Runs another instance of the service on the same server, on a port of its own; {@code settings}
   * ("key=value") as command-line arguments, which override application.yaml.
   */
  private static ConfigurableApplicationContext runAnother(String... settings) {
    Map<String, String> args = new LinkedHashMap<>();
    args.put("server.port", "0");
    args.put("tablecast.client.servers", ProductsServer.address());
    args.put("tablecast.client.mirrors.products.table", ProductsServer.table());
    for (String setting :
        settings) { // one argument per key: Spring Boot joins repeated ones into a list
      args.put(
          setting.substring(0, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
    }
    return new SpringApplicationBuilder(ProductServiceApplication.class)
        .run(
            args.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new));
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static <T extends Throwable> T causeOfType(Throwable thrown, Class<T> type) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    throw new AssertionError(
        "expected a " + type.getSimpleName() + " among the causes of " + thrown, thrown);
  }

  /** What the test application saw while it started. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Observed {
    final List<String> mirrorWhenAcceptingTraffic = new CopyOnWriteArrayList<>();
    final List<String> connectedTo = new CopyOnWriteArrayList<>();

    @Bean
    ApplicationListener<AvailabilityChangeEvent<ReadinessState>> readiness(
        ObjectProvider<TableMirror<Product>> products) {
      return event -> {
        if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC) {
          TableMirror<Product> mirror = products.getObject();
          mirrorWhenAcceptingTraffic.add(
              (mirror.isReady() ? "ready" : "not ready") + " with " + mirror.size() + " rows");
        }
      };
    }

    @Bean
    ConnectionListener connections() {
      return new ConnectionListener() {
        @Override
        public void connected(String server) {
          connectedTo.add(server);
        }
      };
    }
  }
}
