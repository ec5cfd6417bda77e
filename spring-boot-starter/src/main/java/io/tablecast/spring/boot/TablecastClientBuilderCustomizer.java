package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;

/**
 * Changes the auto-configured client's builder after the {@code tablecast.client.*} properties, the
 * application's {@code ObjectMapper} and its listener beans were applied, just before {@link
 * TablecastClient.Builder#build()}: for what properties do not express (another mapper, a token
 * read from a vault). Beans of this type are applied in their {@code @Order}.
 */
@FunctionalInterface
public interface TablecastClientBuilderCustomizer {

  /** Changes {@code builder}. */
  void customize(TablecastClient.Builder builder);
}
