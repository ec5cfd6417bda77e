package io.tablecast.server;

import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.tail.ChangeSource;

/**
 * The server tests' one way to start a whole server (Netty, hub, tail loop) on a source of their
 * own, usually an in-memory one: the configuration's authenticator (open when it has none) and a
 * Prometheus registry. Handler and codec tests use {@code EmbeddedChannel}s instead, and hub tests
 * {@code HubHarness}, which runs the hub's sessions over local channels without the tail.
 */
public final class TablecastServers {

  private TablecastServers() {}

  public static TablecastServer start(ServerConfig config, ChangeSource source)
      throws InterruptedException {
    Authenticator a =
        config.authenticator() == null ? Authenticator.allowAll() : config.authenticator();
    return TablecastServer.start(config, s -> source, a, MicrometerServerMetrics.prometheus());
  }
}
