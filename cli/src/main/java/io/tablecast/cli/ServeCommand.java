package io.tablecast.cli;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
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
    ServerConfig cfg = ServerConfig.load(config);
    if (from != null) {
      cfg = servedFrom(cfg, from);
    }
    TablecastServer server = TablecastServer.start(cfg);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tablecast-shutdown"));
    StartedMark.started();
    server.awaitTermination();
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
