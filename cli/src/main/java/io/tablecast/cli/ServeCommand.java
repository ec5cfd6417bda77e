package io.tablecast.cli;

import io.tablecast.server.ConfigFileWatch;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Run the server: snapshot the cached tables, tail the outbox, serve clients.")
final class ServeCommand implements Callable<Integer> {

  @Option(
      names = "--config",
      required = true,
      paramLabel = "FILE",
      description = "YAML configuration (see docs/CONFIGURATION.md)")
  Path config;

  @Option(
      names = "--from",
      paramLabel = "URL",
      description =
          "Serve from the NATS stream capture publishes to (nats://host:port), as the nats: "
              + "section would, instead of reading the database")
  String from;

  @Override
  public Integer call() throws Exception {
    UnaryOperator<ServerConfig> adjust = c -> from == null ? c : servedFrom(c, from);
    ServerConfig cfg = adjust.apply(ServerConfig.load(config));
    TablecastServer server = TablecastServer.start(cfg);
    // auth, metrics_token and allowed_origins changed in the file are applied while serving;
    // other keys at the next start
    ConfigFileWatch watch = ConfigFileWatch.start(config, adjust, cfg, server);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  watch.close();
                  server.close();
                },
                "tablecast-shutdown"));
    StartedMark.started();
    server.awaitTermination();
    watch.close();
    return 0;
  }

  /** {@code cfg} with its {@code nats.urls} replaced by {@code from}, its other NATS keys kept. */
  static ServerConfig servedFrom(ServerConfig cfg, String from) {
    NatsSettings nats = cfg.nats();
    return cfg.toBuilder()
        .set(
            "nats",
            nats == null
                ? new NatsSettings(List.of(from), null, null, null, null)
                : nats.withUrls(List.of(from)))
        .build();
  }
}
