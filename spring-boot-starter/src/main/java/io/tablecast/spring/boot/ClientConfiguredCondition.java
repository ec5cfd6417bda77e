package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The application has a Tablecast client: {@code tablecast.client.servers} is set (a client is
 * auto-configured), or it defines a {@link TablecastClient} bean of its own.
 */
final class ClientConfiguredCondition extends AnyNestedCondition {

  ClientConfiguredCondition() {
    super(ConfigurationPhase.REGISTER_BEAN);
  }

  @Conditional(ServersConfigured.class)
  static final class Servers {}

  @ConditionalOnBean(TablecastClient.class)
  static final class ApplicationClient {}

  /**
   * {@code tablecast.client.servers} is set, in any form Spring Boot binds a list from ({@code
   * a:1,b:2}, {@code servers[0]}, a YAML list), which {@code @ConditionalOnProperty} does not all
   * see.
   */
  static final class ServersConfigured extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      List<String> servers =
          Binder.get(context.getEnvironment())
              .bind("tablecast.client.servers", Bindable.listOf(String.class))
              .orElse(List.of());
      return servers.isEmpty()
          ? ConditionOutcome.noMatch("tablecast.client.servers is not set")
          : ConditionOutcome.match("tablecast.client.servers is " + servers);
    }
  }
}
