package io.tablecast.cli;

import io.tablecast.server.capture.TriggerInstaller;
import picocli.CommandLine.Command;

@Command(
    name = "install",
    mixinStandardHelpOptions = true,
    description = "Create the outbox and the capture triggers. Idempotent.")
final class InstallCommand extends TriggerCommand {
  @Override
  int run(TriggerInstaller installer) throws Exception {
    installer.install();
    spec.commandLine().getOut().println("installed");
    spec.commandLine().getOut().flush();
    return 0;
  }
}
