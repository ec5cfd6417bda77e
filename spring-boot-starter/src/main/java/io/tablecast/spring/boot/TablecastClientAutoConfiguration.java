package io.tablecast.spring.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.ConnectionListener;
import io.tablecast.client.ErrorListener;
import io.tablecast.client.TablecastClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Auto-configures a {@link TablecastClient} from {@code tablecast.client.*} (when {@code
 * tablecast.client.servers} is set and the application defines no client of its own), the mirrors
 * declared under {@code tablecast.client.mirrors}, readiness held until the mirror beans are ready,
 * and the client's close after the web server stopped.
 *
 * <p>The client maps typed rows with the application's {@link ObjectMapper} bean when there is one,
 * and registers the application's {@link ConnectionListener} and {@link ErrorListener} beans so
 * that they hear the first connection; {@link TablecastClientBuilderCustomizer} beans change
 * anything else before it is built.
 */
@AutoConfiguration
@ConditionalOnClass(TablecastClient.class)
@Conditional(ClientConfiguredCondition.class)
@EnableConfigurationProperties(TablecastClientProperties.class)
@Import(PropertyMirrorsRegistrar.class)
public class TablecastClientAutoConfiguration {

  @Bean
  ClientActivity tablecastClientActivity() {
    return new ClientActivity();
  }

  /**
   * The client, connecting in the background at once. Closed by {@link TablecastClientLifecycle}
   * (and, idempotently, when the bean is destroyed).
   */
  @Bean
  @ConditionalOnMissingBean
  TablecastClient tablecastClient(
      TablecastClientProperties properties,
      Environment environment,
      ClientActivity activity,
      ObjectProvider<ObjectMapper> objectMapper,
      ObjectProvider<ConnectionListener> connectionListeners,
      ObjectProvider<ErrorListener> errorListeners,
      ObjectProvider<TablecastClientBuilderCustomizer> customizers) {
    TablecastClient.Builder builder =
        ClientSettings.builder(properties, environment.getProperty("spring.application.name"));
    objectMapper.ifUnique(builder::objectMapper);
    connectionListeners.orderedStream().forEach(builder::connectionListener);
    errorListeners.orderedStream().forEach(builder::errorListener);
    builder
        .connectionListener(activity.connectionListener())
        .errorListener(activity.errorListener());
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    TablecastClient client;
    try {
      client = builder.build();
    } catch (
        IllegalArgumentException e) { // the builder names its own option: say where it came from
      throw new IllegalArgumentException(
          "invalid tablecast.client.* settings: " + e.getMessage(), e);
    }
    activity.attachedAtBuild();
    return client;
  }

  @Bean
  TablecastClientLifecycle tablecastClientLifecycle(
      ObjectProvider<TablecastClient> clients, ClientActivity activity) {
    return new TablecastClientLifecycle(clients, activity);
  }

  @Bean
  MirrorsReadiness tablecastMirrorsReadiness(
      ListableBeanFactory beans, ClientActivity activity, TablecastClientProperties properties) {
    return new MirrorsReadiness(new MirrorBeans(beans), activity, properties.getReadyTimeout());
  }
}
