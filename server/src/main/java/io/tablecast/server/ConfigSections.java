package io.tablecast.server;

import io.tablecast.server.config.ListenSettings;
import io.tablecast.server.hub.HubSettings;
import io.tablecast.server.net.NetSettings;
import io.tablecast.server.net.WebAccess;
import java.util.List;

/** What the hub and the network layer take of the configuration. */
final class ConfigSections {
  private ConfigSections() {}

  /** What the hub takes of the configuration. */
  static HubSettings hub(ServerConfig config) {
    return new HubSettings(
        config.heartbeat(),
        config.resumeBuffer(),
        config.slowConsumer(),
        config.maxSubscriptionsPerConnection());
  }

  /** What the network layer takes of the configuration. */
  static NetSettings net(ServerConfig config) {
    return net(config, config.listen().port());
  }

  /** As {@link #net(ServerConfig)}, on {@code port}. */
  static NetSettings net(ServerConfig config, int port) {
    return new NetSettings(
        config.serverName(),
        new ListenSettings(config.listen().host(), port),
        config.heartbeat(),
        config.handshakeTimeout(),
        config.maxFrameBytes(),
        config.writeBuffer(),
        config.idleTimeout(),
        config.maxConnections(),
        config.staticDir(),
        config.staticClientDir(),
        config.tls(),
        webAccess(config));
  }

  /** {@code metrics_token} and {@code allowed_origins} of {@code config}. */
  static WebAccess webAccess(ServerConfig config) {
    return new WebAccess(
        config.metricsToken() == null ? null : config.metricsToken().value(),
        config.allowedOrigins() == null ? List.of() : config.allowedOrigins());
  }
}
