package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Checks the {@code tablecast.client.*} keys whether or not a client is configured: a misspelt
 * {@code tablecast.client.servers} is the one mistake that would otherwise configure nothing.
 */
@AutoConfiguration(before = TablecastClientAutoConfiguration.class)
@ConditionalOnClass(TablecastClient.class)
public class TablecastSettingsAutoConfiguration {

  @Bean
  static UnknownSettingsCheck tablecastUnknownSettingsCheck() {
    return new UnknownSettingsCheck();
  }
}
