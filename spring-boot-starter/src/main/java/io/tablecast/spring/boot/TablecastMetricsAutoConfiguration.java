package io.tablecast.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastClientMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The client's own {@link TablecastClientMetrics} when Micrometer is on the class path and the
 * application has a client (built by the starter or its own): Spring Boot Actuator binds every
 * {@code MeterBinder} bean to every {@code MeterRegistry}.
 */
@AutoConfiguration(after = TablecastClientAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(TablecastClient.class)
public class TablecastMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  TablecastClientMetrics tablecastClientMetrics(TablecastClient client) {
    return new TablecastClientMetrics(client);
  }
}
