package io.tablecast.cli;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the server: snapshot the cached tables, tail the outbox, serve clients.")
final class ServeCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, paramLabel = "FILE", description = "YAML configuration (see docs/CONFIGURATION.md)")
  Path config;

  @Override
  public Integer call() throws Exception {
    ServerConfig cfg = ServerConfig.load(config);
    TablecastServer server = TablecastServer.start(cfg);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "tablecast-shutdown"));
    server.awaitTermination();
    return 0;
  }
}
