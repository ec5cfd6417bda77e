package io.tablecast.server;

import io.tablecast.server.tail.ChangeSource;

/** Test access to the package-private start with an in-memory source and a Prometheus registry. */
public final class TablecastServers {

  private TablecastServers() {}

  public static TablecastServer start(ServerConfig config, ChangeSource source) throws InterruptedException {
    return TablecastServer.start(config, s -> source, Authenticator.allowAll(), ServerMetrics.prometheus());
  }

  /** As above, with the configuration's authenticator (open when it has none). */
  public static TablecastServer startWithAuth(ServerConfig config, ChangeSource source) throws InterruptedException {
    Authenticator a = config.authenticator() == null ? Authenticator.allowAll() : config.authenticator();
    return TablecastServer.start(config, s -> source, a, ServerMetrics.prometheus());
  }
}
