package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tablecast.client.ServerError;
import java.io.IOException;
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
  void metersFollowTheMirrorsAndTheClientsEvents() {
    runner
        .withPropertyValues(servers, "tablecast.client.mirrors.products.table=shop.products")
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              ClientActivity activity = context.getBean(ClientActivity.class);
              assertThat(registry.get("tablecast.client.connected").gauge().value()).isNaN();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.rows")
                          .tag("mirror", "products")
                          .tag("table", "shop.products")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.ready")
                          .tag("mirror", "products")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.stale")
                          .tag("mirror", "products")
                          .gauge()
                          .value())
                  .isZero();
              assertThat(
                      registry
                          .get("tablecast.client.mirror.position")
                          .tag("mirror", "products")
                          .gauge()
                          .value())
                  .isEqualTo(-1);

              activity.connectionListener().connected("cache1:7070");
              activity.connectionListener().disconnected("cache1:7070", "connection closed");
              activity.connectionListener().connected("cache2:7070");
              activity.connectionListener().resnapshotted("shop.products", 1, 2, 3);
              activity
                  .errorListener()
                  .rowNotMapped(
                      "shop.products", 7L, String.class, new IllegalArgumentException("no"));
              activity
                  .errorListener()
                  .rowNotMapped(
                      "shop.products", 8L, String.class, new IllegalArgumentException("no"));
              activity.errorListener().serverError(ServerError.SLOW_CONSUMER, "too slow", null);
              assertThat(registry.get("tablecast.client.connected").gauge().value()).isEqualTo(1);
              assertThat(registry.get("tablecast.client.reconnects").functionCounter().count())
                  .isEqualTo(1);
              assertThat(registry.get("tablecast.client.disconnects").functionCounter().count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("tablecast.client.resnapshots")
                          .tag("table", "shop.products")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("tablecast.client.rows.unmapped")
                          .tag("table", "shop.products")
                          .functionCounter()
                          .count())
                  .isEqualTo(2);
              assertThat(
                      registry
                          .get("tablecast.client.server.errors")
                          .tag("code", "SLOW_CONSUMER")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
            });
  }
}
