package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@link TablecastHealthIndicator}, named {@code tablecast}, when Actuator is on the class path
 * and the application has a client; {@code management.health.tablecast.enabled=false} turns it off.
 */
@AutoConfiguration(after = TablecastClientAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean({TablecastClient.class, ClientActivity.class})
@ConditionalOnEnabledHealthIndicator("tablecast")
public class TablecastHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "tablecastHealthIndicator")
  TablecastHealthIndicator tablecastHealthIndicator(
      ListableBeanFactory beans, ClientActivity activity) {
    return new TablecastHealthIndicator(new MirrorBeans(beans), activity);
  }
}
