package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;

/**
 * Turns {@link TablecastClientProperties} into a {@link TablecastClient.Builder}: one place that
 * maps each property to its builder call and refuses combinations the builder would misread, naming
 * the property.
 */
final class ClientSettings {
  private static final String PREFIX = "tablecast.client.";

  private ClientSettings() {}

  /**
   * A builder configured from {@code properties}; listeners, the mapper and customizers are the
   * caller's to add.
   *
   * @param applicationName {@code spring.application.name}, the default client name, or null
   * @throws IllegalArgumentException naming the property whose value cannot be used
   */
  static TablecastClient.Builder builder(
      TablecastClientProperties properties, String applicationName) {
    TablecastClient.Builder builder =
        TablecastClient.builder()
            .servers(properties.getServers().toArray(new String[0]))
            .clientName(clientName(properties.getName(), applicationName))
            .connectTimeout(properties.getConnectTimeout())
            .reconnectBackoff(
                properties.getReconnectBackoff().getMin(),
                properties.getReconnectBackoff().getMax())
            .maxFrameBytes(maxFrameBytes(properties))
            .heapReservePercent(properties.getHeapReservePercent());
    if (properties.getUser() != null) {
      builder.credentials(properties.getUser(), properties.getPassword());
    } else if (properties.getPassword() != null) {
      throw new IllegalArgumentException(PREFIX + "password is set without " + PREFIX + "user");
    }
    if (properties.getToken() != null) {
      builder.token(properties.getToken());
    }
    tls(properties.getTls(), builder);
    TablecastClientProperties.WarmRestart warm = properties.getWarmRestart();
    if (warm.getDirectory() != null) {
      try {
        builder.warmRestart(warm.getDirectory(), warm.getInterval());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            PREFIX + "warm-restart.interval must be at least 1s, was " + warm.getInterval(), e);
      }
    }
    return builder;
  }

  /**
   * {@code tablecast.client.name}, else {@code spring.application.name}, else the client's default.
   */
  static String clientName(String name, String applicationName) {
    if (name != null) {
      return name;
    }
    return applicationName != null && !applicationName.isBlank()
        ? applicationName
        : TablecastClient.DEFAULT_CLIENT_NAME;
  }

  private static int maxFrameBytes(TablecastClientProperties properties) {
    long bytes = properties.getMaxFrameSize().toBytes();
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          PREFIX
              + "max-frame-size must be at most "
              + Integer.MAX_VALUE
              + " bytes, was "
              + properties.getMaxFrameSize());
    }
    return (int) bytes;
  }

  private static void tls(TablecastClientProperties.Tls tls, TablecastClient.Builder builder) {
    if (!tls.isEnabled()) {
      for (String file :
          new String[] {
            tls.getTrustedCert() != null ? "trusted-cert" : null,
            tls.getClientCert() != null ? "client-cert" : null,
            tls.getClientKey() != null ? "client-key" : null
          }) {
        if (file != null) {
          throw new IllegalArgumentException(
              PREFIX
                  + "tls."
                  + file
                  + " is set but "
                  + PREFIX
                  + "tls.enabled is not true: the connection would be plaintext");
        }
      }
      return;
    }
    if ((tls.getClientCert() == null) != (tls.getClientKey() == null)) {
      throw new IllegalArgumentException(
          PREFIX
              + "tls.client-cert and "
              + PREFIX
              + "tls.client-key go together, was only "
              + (tls.getClientCert() != null ? "client-cert" : "client-key"));
    }
    builder
        .tls(tls.getTrustedCert(), tls.getClientCert(), tls.getClientKey())
        .tlsVerifyHostname(tls.isVerifyHostname());
  }
}
