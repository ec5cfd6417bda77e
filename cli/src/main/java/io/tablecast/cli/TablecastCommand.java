package io.tablecast.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tablecast} launcher: one entry point for serving, installing and inspecting. */
@Command(
    name = "tablecast",
    mixinStandardHelpOptions = true,
    version = "tablecast 0.1.0",
    description =
        "Live in-memory copies of database tables, pushed to every process that reads them.",
    subcommands = {
      ServeCommand.class,
      CaptureCommand.class,
      CheckCommand.class,
      PrintSqlCommand.class,
      InstallCommand.class,
      UninstallCommand.class,
      WatchCommand.class,
      DumpCommand.class,
      DemoCommand.class,
      HashPasswordCommand.class,
      CommandLine.HelpCommand.class,
      AutoComplete.GenerateCompletion.class
    })
public final class TablecastCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, shared by {@link #main} and tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TablecastCommand());
    cl.registerConverter(java.time.Duration.class, new DurationConverter());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    // `generate-completion` prints a bash/zsh completion script; listed in the help like the others
    cl.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false);
    UnknownCommand.install(cl);
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println("tablecast " + cmd.getCommandName() + ": " + describe(e));
          return 1;
        });
    return cl;
  }

  static String describe(Throwable e) {
    StringBuilder sb =
        new StringBuilder(String.valueOf(e.getMessage() == null ? e : e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !sb.toString().contains(c.getMessage())) {
        sb.append(": ").append(c.getMessage());
      }
    }
    return sb.toString();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
