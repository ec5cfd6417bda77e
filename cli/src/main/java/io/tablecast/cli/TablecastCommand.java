package io.tablecast.cli;

import java.util.Map;
import java.util.function.Supplier;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

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

  /** The roles whose start time matters, by name; each also listed in the annotation above. */
  private static final Map<String, Supplier<Object>> SERVER_ROLES =
      Map.of("serve", ServeCommand::new, "capture", CaptureCommand::new);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Netty's switch for its JFR events ({@code io.netty.AllocateBuffer} and others): off in
   * Tablecast's own processes unless set. The events are disabled in every recording that does not
   * ask for them, but the first pooled buffer still loads JDK Flight Recorder's classes to ask:
   * about 0.1 s on the connection's path of a client's cold start (a quarter of a second of a new
   * client's readiness on a million rows, docs/BENCHMARKS.md, "A new client's start: Netty's JFR
   * events"). {@code -Dio.netty.jfr.enabled=true} brings them back.
   */
  static final String NETTY_JFR = "io.netty.jfr.enabled";

  /**
   * The JDK's choice of {@link java.net.Socket} implementation, the one JDBC drivers use: on Java
   * 17, the legacy one in Tablecast's own processes unless set. The default since Java 13 puts a
   * socket in non-blocking mode for good the first time a timeout is set on it, as the connection
   * pool does when it checks a connection; from then on every read the database has not answered
   * yet is a {@code read} that fails, a {@code poll} and a {@code read} again, three system calls
   * where the legacy one makes one, on each of the tail's round trips (a thousand a second while
   * writers are busy; docs/BENCHMARKS.md, "The server's CPU per change once the JIT has settled,
   * and the tail's reads as one system call"). Java 18 removed the legacy implementation, and with
   * it the setting (only Java 17 was run here). {@code -Djdk.net.usePlainSocketImpl=false} keeps
   * the default.
   */
  static final String PLAIN_SOCKETS = "jdk.net.usePlainSocketImpl";

  public static void main(String[] args) {
    withoutNettyJfrUnlessAsked(System.getProperties());
    withBlockingSocketsUnlessAsked(System.getProperties()); // before any socket is made
    System.exit(
        execute(
            commandLine(args.length == 0 ? null : args[0]), args, CommandOutput.standardOutput()));
  }

  /**
   * Runs {@code args} on {@code cl} writing to {@code out}: the exit code, a failure if the output
   * could not be written (see {@link CommandOutput}).
   */
  static int execute(CommandLine cl, String[] args, CommandOutput out) {
    cl.setOut(out);
    int code = cl.execute(args);
    CommandLine.ParseResult parsed = cl.getParseResult();
    while (parsed != null && parsed.hasSubcommand()) {
      parsed = parsed.subcommand();
    }
    String command = parsed == null ? "tablecast" : parsed.commandSpec().qualifiedName();
    return out.exitCode(code, command, cl.getErr());
  }

  /**
   * Turns Netty's JFR events off in {@code properties} unless they say otherwise; before any Netty
   * class reads them.
   */
  static void withoutNettyJfrUnlessAsked(java.util.Properties properties) {
    properties.putIfAbsent(NETTY_JFR, "false");
  }

  /**
   * Asks for the JDK's legacy socket implementation ({@link #PLAIN_SOCKETS}) in {@code properties}
   * unless they say otherwise; before any {@link java.net.Socket} is made.
   */
  static void withBlockingSocketsUnlessAsked(java.util.Properties properties) {
    properties.putIfAbsent(PLAIN_SOCKETS, "true");
  }

  /** The configured command line, shared by {@link #main} and tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TablecastCommand());
    // `generate-completion` prints a bash/zsh completion script; listed in the help like the others
    cl.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false);
    UnknownCommand.install(cl);
    return configured(cl);
  }

  /**
   * The command line for arguments that start with {@code first}: for a server role ({@code serve},
   * {@code capture}) a {@code tablecast} with that one subcommand, else {@link #commandLine()}.
   * picocli builds the model of every subcommand it is given, by reflection, before parsing: about
   * 0.1 s of a server's start for the ten that a server role never runs (docs/BENCHMARKS.md,
   * "Server start: what comes before the snapshot"). The role's options, help and errors are the
   * same either way ({@code TablecastCommandTest}).
   */
  static CommandLine commandLine(String first) {
    Supplier<Object> role = first == null ? null : SERVER_ROLES.get(first);
    if (role == null) {
      return commandLine();
    }
    CommandLine cl = new CommandLine(CommandSpec.create().name("tablecast"));
    cl.addSubcommand(first, role.get());
    return configured(cl);
  }

  /** Settings picocli applies to the subcommands already added, so called after adding them. */
  private static CommandLine configured(CommandLine cl) {
    cl.registerConverter(java.time.Duration.class, new DurationConverter());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
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
