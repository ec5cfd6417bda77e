package io.tablecast.cli;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.capture.TriggerInstaller;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Base of the commands that look at or manage the outbox and triggers described by a config file.
 */
abstract class TriggerCommand implements Callable<Integer> {

  @Option(
      names = "--config",
      required = true,
      paramLabel = "FILE",
      description = "YAML configuration (see docs/CONFIGURATION.md)")
  Path config;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  /** The configuration read from {@link #config}, once {@link #call} has read it. */
  ServerConfig cfg;

  @Override
  public Integer call() throws Exception {
    cfg = ServerConfig.load(config);
    try (TriggerInstaller installer = TriggerInstaller.connect(cfg.source())) {
      return run(installer);
    }
  }

  /** Does the command's work; returns its exit code. */
  abstract int run(TriggerInstaller installer) throws Exception;
}
