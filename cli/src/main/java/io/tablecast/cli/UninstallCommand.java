package io.tablecast.cli;

import io.tablecast.server.capture.TriggerInstaller;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "uninstall",
    mixinStandardHelpOptions = true,
    description = {
      "Drop the capture triggers, the registry and the outbox; with --table, only the capture of "
          + "those tables. Idempotent.",
      "Refused while a running server (registered in tablecast_consumers) needs what would be removed, "
          + "naming it, unless --force."
    })
final class UninstallCommand extends TriggerCommand {

  @Option(
      names = "--table",
      paramLabel = "TABLE",
      description =
          "Remove only this table's capture "
              + "(schema.table, or table in the outbox's schema); repeatable. The outbox stays.")
  List<String> tables = List.of();

  @Option(
      names = "--force",
      description = "Remove even what a running server needs (it stops receiving changes).")
  boolean force;

  @Override
  int run(TriggerInstaller installer) throws Exception {
    spec.commandLine().getOut().println(installer.uninstall(new LinkedHashSet<>(tables), force));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
