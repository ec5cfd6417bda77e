package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tablecast.client.ServerError;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastClientMetrics;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The health indicator and the meters: there only with Actuator / Micrometer and a client. */
class HealthAndMetricsAutoConfigurationTest {
  private final SilentServer server = new SilentServer();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  TablecastClientAutoConfiguration.class,
                  TablecastHealthAutoConfiguration.class,
                  TablecastMetricsAutoConfiguration.class,
                  MetricsAutoConfiguration.class,
                  SimpleMetricsExportAutoConfiguration.class,
                  CompositeMeterRegistryAutoConfiguration.class));
  private final String servers = "tablecast.client.servers=" + server.address();

  @AfterEach
  void closeServer() throws IOException {
    server.close();
  }

  @Test
  void withoutAClientThereIsNeitherHealthNorMetrics() {
    runner.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(TablecastHealthIndicator.class)
                .doesNotHaveBean(TablecastClientMetrics.class));
  }

  @Test
  void withoutActuatorThereIsNoHealthIndicator() {
    runner
        .withPropertyValues(servers)
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(TablecastHealthIndicator.class));
  }

  @Test
  void theHealthIndicatorCanBeTurnedOff() {
    runner
        .withPropertyValues(servers, "management.health.tablecast.enabled=false")
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(TablecastHealthIndicator.class));
  }

  @Test
  void withoutMicrometerThereAreNoMetrics() {
    runner
        .withPropertyValues(servers)
        .withClassLoader(new FilteredClassLoader(MeterBinder.class))
        .run(
            context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(TablecastClientMetrics.class));
  }

  @Test
  void healthIsDownAndNamesTheMirrorsThatAreNotReady() {
    runner
        .withPropertyValues(servers, "tablecast.client.mirrors.products.table=shop.products")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasBean("tablecastHealthIndicator");
              ClientActivity activity = context.getBean(ClientActivity.class);
              Health unknown = context.getBean(TablecastHealthIndicator.class).health();
              assertThat(unknown.getStatus()).isEqualTo(Status.DOWN);
              assertThat(unknown.getDetails())
                  .containsEntry("connected", "unknown")
                  .containsEntry(
                      "mirrors",
                      Map.of(
                          "products",
                          Map.of(
                              "table",
                              "shop.products",
                              "ready",
                              false,
                              "rows",
                              0,
                              "position",
                              -1L)));

              activity.connectionListener().connected("cache1:7070");
              activity
                  .errorListener()
                  .serverError(
                      ServerError.UNKNOWN_TABLE, "shop.products is not cached", "shop.products");
              Health refused = context.getBean(TablecastHealthIndicator.class).health();
              assertThat(refused.getStatus()).isEqualTo(Status.DOWN);
              assertThat(refused.getDetails())
                  .containsEntry("connected", true)
                  .containsEntry("server", "cache1:7070")
                  .containsEntry(
                      "mirrors",
                      Map.of(
                          "products",
                          Map.of(
                              "table",
                              "shop.products",
                              "ready",
                              false,
                              "rows",
                              0,
                              "position",
                              -1L,
                              "error",
                              "UNKNOWN_TABLE: shop.products is not cached")));
            });
  }

  @Test
  void healthIsDownAndSaysWhyWhenNoServerCanBeReached() throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort(); // nothing listens there once closed
    }
    String unreachable = "127.0.0.1:" + port;
    runner
        .withPropertyValues("tablecast.client.servers=" + unreachable)
        .run(
            context -> {
              TablecastHealthIndicator indicator = context.getBean(TablecastHealthIndicator.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> indicator.health().getDetails().containsKey("lastConnectFailure"));
              Health health = indicator.health();
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails())
                  .containsEntry("connected", false)
                  .containsEntry("lastConnectFailure", unreachable + ": Connection refused");
            });
  }

  @Test
  void healthIsUpWithoutMirrorsWhileConnectedAndDownOnceDisconnected() {
    runner
        .withPropertyValues(servers)
        .run(
            context -> {
              ClientActivity activity = context.getBean(ClientActivity.class);
              TablecastHealthIndicator health = context.getBean(TablecastHealthIndicator.class);
              activity.connectionListener().connected("cache1:7070");
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              activity.connectionListener().disconnected("cache1:7070", "connection closed");
              assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.health().getDetails())
                  .containsEntry("connected", false)
                  .containsEntry("lastDisconnect", "cache1:7070: connection closed");
            });
  }

  @Test
  void theClientsOwnMetersAreBoundToTheApplicationsRegistry() {
    runner
        .withPropertyValues(
            servers,
            "tablecast.client.name=shop-service",
            "tablecast.client.mirrors.products.table=shop.products")
        .run(
            context -> {
              assertThat(context).hasSingleBean(TablecastClientMetrics.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              // the silent server never welcomes the client: not connected, nothing in the mirror
              assertThat(
                      registry
                          .get("tablecast.client.connected")
                          .tag("client", "shop-service")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(registry.get("tablecast.client.reconnects").functionCounter().count())
                  .isZero();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.rows")
                          .tags("client", "shop-service", "table", "shop.products")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.ready")
                          .tag("table", "shop.products")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(registry.get("tablecast.client.lag").tag("table", "shop.products").timer())
                  .isNotNull();
              assertThat(
                      registry
                          .get("tablecast.client.server.errors")
                          .tag("code", "SLOW_CONSUMER")
                          .functionCounter()
                          .count())
                  .isZero();
            });
  }

  @Test
  void anApplicationsOwnClientGetsItsMetersToo() {
    runner
        .withUserConfiguration(OwnClient.class)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get("tablecast.client.mirror.rows")
                          .tags("client", "own", "table", "shop.own")
                          .gauge()
                          .value())
                  .isZero();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnClient {
    @Bean(destroyMethod = "close")
    TablecastClient ownClient() {
      TablecastClient client =
          TablecastClient.builder().servers("127.0.0.1:9").clientName("own").build();
      client.mirror("shop.own");
      return client;
    }
  }
}
