package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;

/** What the client auto-configuration does with each kind of configuration, without a server. */
class TablecastClientAutoConfigurationTest {
  private final SilentServer server = new SilentServer();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(TablecastClientAutoConfiguration.class));

  /** A typed row. */
  record Product(int id, String name) {}

  @AfterEach
  void closeServer() throws IOException {
    server.close();
  }

  @Test
  void withoutServersThereIsNoClient() {
    runner
        .withPropertyValues("tablecast.client.name=app")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .doesNotHaveBean(TablecastClient.class)
                  .doesNotHaveBean(ClientActivity.class)
                  .doesNotHaveBean(TablecastClientLifecycle.class)
                  .doesNotHaveBean(MirrorsReadiness.class)
                  .doesNotHaveBean(TableMirror.class);
            });
  }

  @Test
  void serversGiveAClientAndThePropertyMirrorsAsTypedBeans() {
    runner
        .withPropertyValues(
            "tablecast.client.servers=" + server.address(),
            "tablecast.client.mirrors.products.table=shop.products",
            "tablecast.client.mirrors.products.type=" + Product.class.getName(),
            "tablecast.client.mirrors.countries.table=shop.countries")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(TablecastClient.class)
                  .hasSingleBean(TablecastClientLifecycle.class)
                  .hasSingleBean(MirrorsReadiness.class);
              assertThat(context.getBean("products", TableMirror.class).table())
                  .isEqualTo("shop.products");
              assertThat(context.getBean("countries", TableMirror.class).table())
                  .isEqualTo("shop.countries");
              // injectable by their row type, as TableMirror<Product> and TableMirror<Map<String,
              // Object>>
              assertThat(
                      context
                          .getBeanProvider(
                              ResolvableType.forClassWithGenerics(TableMirror.class, Product.class))
                          .getIfUnique())
                  .isSameAs(context.getBean("products"));
              assertThat(
                      context
                          .getBeanProvider(
                              ResolvableType.forClassWithGenerics(
                                  TableMirror.class,
                                  ResolvableType.forClassWithGenerics(
                                      Map.class, String.class, Object.class)))
                          .getIfUnique())
                  .isSameAs(context.getBean("countries"));
              // the same mirrors the client hands out
              TablecastClient client = context.getBean(TablecastClient.class);
              assertThat(client.mirror("shop.products", Product.class))
                  .isSameAs(context.getBean("products"));
            });
  }

  @Test
  void serversAsAnIndexedListAreSeenToo() {
    runner
        .withPropertyValues(
            "tablecast.client.servers[0]=" + server.address(),
            "tablecast.client.servers[1]=127.0.0.1:7071")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(TablecastClient.class));
  }

  @Test
  void anApplicationsOwnClientIsKeptAndGetsThePropertyMirrors() {
    runner
        .withUserConfiguration(OwnClient.class)
        .withPropertyValues("tablecast.client.mirrors.products.table=shop.products")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(TablecastClient.class)
                  .hasSingleBean(ClientActivity.class);
              assertThat(context.getBean(TablecastClient.class))
                  .isSameAs(context.getBean(OwnClient.class).client);
              assertThat(context.getBean("products", TableMirror.class))
                  .isSameAs(context.getBean(OwnClient.class).client.mirror("shop.products"));
            });
  }

  @Test
  void customizersRunLastOnTheBuilder() {
    runner
        .withUserConfiguration(Customizers.class)
        .withPropertyValues("tablecast.client.servers=" + server.address())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Customizers.class).calls)
                  .containsExactly("first", "second");
            });
  }

  @Test
  void settingsThatCannotBeUsedFailStartupNamingTheProperty() {
    String servers = "tablecast.client.servers=" + server.address();
    assertStartupFails(
        runner.withPropertyValues(servers, "tablecast.client.tls.trusted-cert=/etc/ca.pem"),
        "tablecast.client.tls.trusted-cert is set but tablecast.client.tls.enabled is not true");
    assertStartupFails(
        runner.withPropertyValues(servers, "tablecast.client.password=secret"),
        "tablecast.client.password is set without tablecast.client.user");
    assertStartupFails(
        runner.withPropertyValues(
            servers,
            "tablecast.client.tls.enabled=true",
            "tablecast.client.tls.client-cert=/etc/client.pem"),
        "tablecast.client.tls.client-cert and tablecast.client.tls.client-key go together");
    assertStartupFails(
        runner.withPropertyValues(
            servers,
            "tablecast.client.warm-restart.directory=/tmp/mirrors",
            "tablecast.client.warm-restart.interval=10ms"),
        "tablecast.client.warm-restart.interval must be at least 1s, was PT0.01S");
    assertStartupFails(
        runner.withPropertyValues(servers, "tablecast.client.connect-timeout=0s"),
        "invalid tablecast.client.* settings: connectTimeout must be positive");
    assertStartupFails(
        runner.withPropertyValues(servers, "tablecast.client.max-frame-size=4GB"),
        "tablecast.client.max-frame-size must be at most 2147483647 bytes, was 4294967296B");
    assertStartupFails(
        runner.withPropertyValues("tablecast.client.servers=cache1"),
        "invalid tablecast.client.* settings: server must be host:port, was \"cache1\"");
    assertStartupFails(
        runner.withPropertyValues(
            servers, "tablecast.client.mirrors.products.type=java.lang.String"),
        "tablecast.client.mirrors.products.table must name the cached table");
  }

  @Test
  void theClientClosesAfterTheWebServerStopped() {
    List<String> seenByWebServerPhase = new ArrayList<>();
    runner
        .withPropertyValues("tablecast.client.servers=" + server.address())
        .withBean(WebServerPhase.class, () -> new WebServerPhase(seenByWebServerPhase))
        .run(
            context -> {
              TablecastClient client = context.getBean(TablecastClient.class);
              context.getBean(WebServerPhase.class).client = client;
              context.close();
              assertThatThrownBy(() -> client.mirror("shop.products"))
                  .isInstanceOf(TablecastException.class);
            });
    assertThat(seenByWebServerPhase).containsExactly("client open when the web server stopped");
  }

  private static void assertStartupFails(ApplicationContextRunner runner, String message) {
    runner.run(
        context -> {
          assertThat(context).hasFailed();
          StringBuilder messages =
              new StringBuilder(); // Spring wraps the failure: look through its causes
          for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
          }
          assertThat(messages.toString()).contains(message);
        });
  }

  /** An application that builds its client itself. */
  @Configuration(proxyBeanMethods = false)
  static class OwnClient {
    final TablecastClient client =
        TablecastClient.builder().servers("127.0.0.1:1").clientName("own").build();

    @Bean
    TablecastClient ownClient() {
      return client;
    }
  }

  /** Two customizers, ordered, and an application ObjectMapper. */
  @Configuration(proxyBeanMethods = false)
  static class Customizers {
    final List<String> calls = new ArrayList<>();

    @Bean
    @org.springframework.core.annotation.Order(2)
    TablecastClientBuilderCustomizer second() {
      return builder -> calls.add("second");
    }

    @Bean
    @org.springframework.core.annotation.Order(1)
    TablecastClientBuilderCustomizer first() {
      return builder -> calls.add("first");
    }

    @Bean
    ObjectMapper applicationMapper() {
      return new ObjectMapper();
    }
  }

  /** Stops in the phase of Spring Boot's web server and looks whether the client is still open. */
  static final class WebServerPhase implements SmartLifecycle {
    private final List<String> seen;
    volatile TablecastClient client;
    private volatile boolean running;

    WebServerPhase(List<String> seen) {
      this.seen = seen;
    }

    @Override
    public void start() {
      running = true;
    }

    @Override
    public void stop() {
      running = false;
      try {
        client.mirror("shop.products");
        seen.add("client open when the web server stopped");
      } catch (TablecastException e) {
        seen.add("client closed before the web server stopped");
      }
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public int getPhase() {
      return org.springframework.boot.web.context.WebServerGracefulShutdownLifecycle
              .SMART_LIFECYCLE_PHASE
          - 1024;
    }
  }
}
