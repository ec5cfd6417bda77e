package io.tablecast.cli;

import io.tablecast.server.capture.TriggerInstaller;
import picocli.CommandLine.Command;

@Command(
    name = "print-sql",
    mixinStandardHelpOptions = true,
    description = "Print the SQL that install would run (outbox, triggers), without running it.")
final class PrintSqlCommand extends TriggerCommand {
  @Override
  int run(TriggerInstaller installer) throws Exception {
    spec.commandLine().getOut().println(installer.printSql());
    spec.commandLine().getOut().flush();
    return 0;
  }
}
