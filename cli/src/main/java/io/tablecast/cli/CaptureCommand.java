package io.tablecast.cli;

import io.tablecast.server.CaptureConfigWatch;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.stream.CaptureEndpoints;
import io.tablecast.server.stream.CaptureStandby;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "capture",
    mixinStandardHelpOptions = true,
    description =
        "Tail the database and publish every committed batch to its NATS JetStream stream "
            + "(the nats: section), for servers started with nats: to serve (docs/SCALE-OUT.md). "
            + "Run several for one database: one publishes, the others wait and take over.")
final class CaptureCommand implements Callable<Integer> {

  @Option(
      names = "--config",
      required = true,
      paramLabel = "FILE",
      description = "YAML configuration with source: and nats: (see docs/SCALE-OUT.md)")
  Path config;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    ServerConfig cfg = ServerConfig.load(config);
    if (cfg.source() == null || cfg.nats() == null) {
      spec.commandLine()
          .getErr()
          .println(
              "capture needs both a source: section (the database) and a nats: section (the stream); "
                  + config
                  + " has "
                  + (cfg.source() == null ? "no source" : "no nats"));
      return 2;
    }
    CaptureStandby capture = CaptureStandby.start(cfg.source(), cfg.nats(), cfg.serverName());
    CaptureEndpoints endpoints =
        CaptureEndpoints.start(
            cfg.listen().host(),
            cfg.listen().port(),
            capture,
            cfg.metricsToken() == null ? null : cfg.metricsToken().value());
    // a rotated metrics_token is applied while capture runs; the keys it reads at the next start
    CaptureConfigWatch watch = CaptureConfigWatch.start(config, cfg, endpoints);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  watch.close();
                  capture.close();
                  endpoints.close();
                },
                "tablecast-shutdown"));
    StartedMark.started();
    capture.awaitTermination();
    watch.close();
    endpoints.close();
    if (capture.failure() != null) {
      spec.commandLine().getErr().println(capture.failure().getMessage());
      return 1;
    }
    return 0;
  }
}
