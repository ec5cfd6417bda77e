package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TablecastClient;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A {@code tablecast.client.*} key that no setting reads fails the start, naming every such key,
 * where it was set and the settings at its level, whether or not a client is configured; the keys
 * the settings read start the application.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownSettingsTest {
  private final SilentServer server = new SilentServer();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  TablecastSettingsAutoConfiguration.class,
                  TablecastClientAutoConfiguration.class));

  @AfterEach
  void closeServer() throws IOException {
    server.close();
  }

  @Test
  void aMisspeltServersKeyFailsTheStartInsteadOfConfiguringNoClient() {
    runner
        .withPropertyValues("tablecast.client.server=" + server.address())
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(UnknownSettingsException.class)
                  .hasMessageContaining(
                      "a tablecast.client key is not a setting: tablecast.client.server")
                  .hasMessageContaining(
                      "is not a Tablecast client setting: the settings under tablecast.client are"
                          + " connect-timeout, heap-reserve-percent, max-frame-size, mirrors, name,"
                          + " password, ready-timeout, reconnect-backoff, servers, tls, token,"
                          + " user, warm-restart");
            });
  }

  @Test
  void everyUnknownKeyIsNamedAtOnceWithTheSettingsAtItsLevel() {
    runner
        .withPropertyValues(
            "tablecast.client.servers=" + server.address(),
            "tablecast.client.heap-reserve-pct=10",
            "tablecast.client.reconnect-backoff.minimum=1s",
            "tablecast.client.tls.trust=/etc/ca.pem",
            "tablecast.client.mirrors.products.tabel=shop.products")
        .run(
            context -> {
              assertThat(context).hasFailed();
              UnknownSettingsException e = (UnknownSettingsException) context.getStartupFailure();
              assertThat(e.problems()).hasSize(4);
              assertThat(e.getMessage())
                  .startsWith("4 tablecast.client keys are not settings: ")
                  .contains(
                      "tablecast.client.heap-reserve-pct (\"tablecast.client.heap-reserve-pct\""
                          + " from property source \"test\") is not a Tablecast client setting")
                  .contains(
                      "tablecast.client.reconnect-backoff.minimum (\"tablecast.client.reconnect-"
                          + "backoff.minimum\" from property source \"test\") is not a Tablecast"
                          + " client setting: the settings under tablecast.client.reconnect-backoff"
                          + " are max, min")
                  .contains(
                      "the settings under tablecast.client.tls are client-cert, client-key,"
                          + " enabled, trusted-cert, verify-hostname")
                  .contains(
                      "tablecast.client.mirrors.products.tabel (\"tablecast.client.mirrors"
                          + ".products.tabel\" from property source \"test\") is not a Tablecast"
                          + " client setting: the settings under tablecast.client.mirrors.products"
                          + " are table, type");
            });
  }

  @Test
  void theKeysTheSettingsReadStartTheApplicationInEachForm() {
    runner
        .withPropertyValues(
            "tablecast.client.servers[0]=" + server.address(),
            "tablecast.client.name=app",
            "tablecast.client.connectTimeout=2s",
            "tablecast.client.heap_reserve_percent=10",
            "tablecast.client.reconnect-backoff.min=1s",
            "tablecast.client.tls.verify-hostname=true",
            "tablecast.client.warm-restart.interval=10m",
            "tablecast.client.mirrors.products.table=shop.products",
            "tablecast.client.mirrors.products.type=" + Map.class.getName())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(TablecastClient.class));
    runner
        .withPropertyValues("spring.application.name=app", "tablecastclient=unrelated")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TablecastClient.class));
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Application {}

  @Test
  void anEnvironmentVariableIsCheckedTooAndTheReportSaysWhatToDo(CapturedOutput output) {
    SpringApplication application = new SpringApplication(Application.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.addInitializers(
        context ->
            context
                .getEnvironment()
                .getPropertySources()
                .addFirst(
                    new SystemEnvironmentPropertySource(
                        "test-systemEnvironment",
                        Map.of("TABLECAST_CLIENT_SEVER", server.address()))));
    try {
      application.run().close();
    } catch (UnknownSettingsException expected) {
      // reported by the failure analyzer below
    }
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Tablecast client settings that no setting reads")
        .contains(
            "tablecast.client.sever (\"TABLECAST_CLIENT_SEVER\" from property source"
                + " \"test-systemEnvironment\") is not a Tablecast client setting")
        .contains("Correct or remove these keys");
  }
}
