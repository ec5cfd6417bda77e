package io.tablecast.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.tablecast.client.TablecastClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link TablecastClientMetrics} when Micrometer is on the class path and the application has a
 * client; Spring Boot Actuator binds it to every {@code MeterRegistry}.
 */
@AutoConfiguration(after = TablecastClientAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean({TablecastClient.class, ClientActivity.class})
public class TablecastMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  TablecastClientMetrics tablecastClientMetrics(
      ListableBeanFactory beans, ClientActivity activity) {
    return new TablecastClientMetrics(new MirrorBeans(beans), activity);
  }
}
