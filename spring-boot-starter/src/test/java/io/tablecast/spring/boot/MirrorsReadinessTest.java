package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Readiness through a whole {@code SpringApplication} (runners and availability events are its):
 * mirrors that never become ready keep the application from reporting ready and fail its start,
 * naming every table in Spring Boot's startup failure report. The ready path runs against a real
 * server in the Spring Boot example's test.
 */
class MirrorsReadinessTest {

  /** Availability changes published while the application started. */
  static final List<AvailabilityState> STATES = new CopyOnWriteArrayList<>();

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void mirrorsThatAreNotReadyInTimeFailStartupNamingTheirTablesAndNeverReportReady(
      CapturedOutput output) throws Exception {
    STATES.clear();
    try (SilentServer server = new SilentServer()) {
      SpringApplicationBuilder app =
          new SpringApplicationBuilder(App.class)
              .web(WebApplicationType.NONE)
              .listeners(
                  event -> {
                    if (event instanceof AvailabilityChangeEvent<?> change) {
                      STATES.add(change.getState());
                    }
                  })
              .properties(
                  "tablecast.client.servers=" + server.address(),
                  "tablecast.client.ready-timeout=300ms",
                  "tablecast.client.mirrors.products.table=shop.products");
      // Spring Boot wraps what a runner throws; its failure analyzers look through the causes, and
      // so does this
      MirrorsNotReadyException failure =
          causeOfType(catchThrowable(app::run), MirrorsNotReadyException.class);

      assertThat(failure.notReady())
          .isEqualTo(
              Map.of(
                  "shop.products",
                  "no snapshot yet",
                  "shop.countries",
                  "no snapshot yet")); // from the properties and from a @Bean
      assertThat(failure)
          .hasMessageStartingWith(
              "Tablecast mirrors not ready within 300ms " + "(tablecast.client.ready-timeout): ")
          .hasMessageContaining("shop.products (no snapshot yet)")
          .hasMessageContaining("shop.countries (no snapshot yet)")
          .hasMessageContaining("; connection: no server welcomed the client yet");
      assertThat(STATES).doesNotContain(ReadinessState.ACCEPTING_TRAFFIC);

      // what the user reads: Spring Boot's startup failure report, written by the starter's
      // failure analyzer (registered in META-INF/spring.factories), not a stack trace alone
      String report = output.toString();
      assertThat(report).contains("APPLICATION FAILED TO START");
      String analysis = report.substring(report.indexOf("APPLICATION FAILED TO START"));
      assertThat(analysis)
          .contains("Description:", failure.getMessage(), "Action:")
          .contains(
              "Check that tablecast.client.servers reach a Tablecast server",
              "tablecast.client.ready-timeout.");
    }
  }

  @Test
  void aServerThatCannotBeReachedIsNamedWithWhyInTheStartupFailure() throws Exception {
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      port = probe.getLocalPort(); // nothing listens there once closed
    }
    SpringApplicationBuilder app =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "tablecast.client.servers=127.0.0.1:" + port,
                "tablecast.client.ready-timeout=1s",
                "tablecast.client.mirrors.products.table=shop.products");
    MirrorsNotReadyException failure =
        causeOfType(catchThrowable(app::run), MirrorsNotReadyException.class);
    assertThat(failure)
        .hasMessageContaining(
            "; connection: no server welcomed the client yet (tablecast.client.servers); the last"
                + " attempt: cannot connect to 127.0.0.1:"
                + port
                + ": Connection refused");
  }

  @Test
  void withoutMirrorsStartupDoesNotWait() throws Exception {
    STATES.clear();
    try (SilentServer server = new SilentServer();
        ConfigurableApplicationContext context =
            new SpringApplicationBuilder(NoMirrors.class)
                .web(WebApplicationType.NONE)
                .listeners(
                    event -> {
                      if (event instanceof AvailabilityChangeEvent<?> change) {
                        STATES.add(change.getState());
                      }
                    })
                .properties(
                    "tablecast.client.servers=" + server.address(),
                    "tablecast.client.ready-timeout=1h")
                .run()) {
      assertThat(context.getBean(TablecastClient.class)).isNotNull();
      assertThat(STATES).contains(ReadinessState.ACCEPTING_TRAFFIC);
    }
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

  /** An application with one mirror declared as a bean (and one in the properties). */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
    @Bean
    TableMirror<Map<String, Object>> countries(TablecastClient client) {
      return client.mirror("shop.countries");
    }
  }

  /** An application with a client and no mirror. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class NoMirrors {}
}
