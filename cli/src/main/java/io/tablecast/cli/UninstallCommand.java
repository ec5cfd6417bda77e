package io.tablecast.cli;

import io.tablecast.server.capture.TriggerInstaller;
import picocli.CommandLine.Command;

@Command(name = "uninstall", mixinStandardHelpOptions = true, description = "Drop the capture triggers and the outbox. Idempotent.")
final class UninstallCommand extends TriggerCommand {
  @Override
  void run(TriggerInstaller installer) throws Exception {
    installer.uninstall();
    spec.commandLine().getOut().println("uninstalled");
    spec.commandLine().getOut().flush();
  }
}
