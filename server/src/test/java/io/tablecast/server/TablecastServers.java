package io.tablecast.server;

import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.net.TlsConfig;
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

  /**
   * A server named {@code name} on a free local port, with {@code tls}, serving {@code
   * public.products} of {@code source} (the TLS tests).
   */
  public static TablecastServer startWithTls(String name, TlsConfig tls, ChangeSource source)
      throws InterruptedException {
    return start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .set("heartbeat", java.time.Duration.ofMillis(500))
            .set("tls", tls)
            .source(
                new SourceConfig(
                    "jdbc:postgresql://fake/app",
                    null,
                    null,
                    java.util.List.of("public.products"),
                    false,
                    null,
                    null))
            .build(),
        source);
  }
}
