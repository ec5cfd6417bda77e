package io.tablecast.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionStrategy;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * An unknown command is an error, also with {@code --help} after it: picocli alone would print the
 * top-level help for {@code tablecast replicate --help} and exit 0, so a script calling a command
 * this version lacks would seem to succeed. Says {@code unknown command 'NAME'}, lists the
 * commands, and exits with picocli's code for invalid input (2).
 */
final class UnknownCommand {

  private UnknownCommand() {}

  /** Makes {@code top}, the {@code tablecast} command line, refuse unknown commands. */
  static void install(CommandLine top) {
    IExecutionStrategy execute = top.getExecutionStrategy();
    top.setExecutionStrategy(
        parsed -> {
          String unknown = unknownCommand(parsed.unmatched(), parsed);
          return unknown != null ? refuse(top, unknown) : execute.execute(parsed);
        });
    IParameterExceptionHandler handler = top.getParameterExceptionHandler();
    top.setParameterExceptionHandler(
        (e, args) -> {
          if (e instanceof UnmatchedArgumentException u && u.getCommandLine() == top) {
            String unknown = unknownCommand(u.getUnmatched(), null);
            if (unknown != null) {
              return refuse(top, unknown);
            }
          }
          return handler.handleParseException(e, args);
        });
  }

  /** The first word given where a command was expected that names none, or null. */
  private static String unknownCommand(List<String> unmatched, ParseResult parsed) {
    if (unmatched.isEmpty() || (parsed != null && parsed.hasSubcommand())) {
      return null;
    }
    String first = unmatched.get(0);
    return first.startsWith("-") ? null : first;
  }

  private static int refuse(CommandLine top, String name) {
    PrintWriter err = top.getErr();
    err.println("tablecast: unknown command '" + name + "'");
    err.println("Commands: " + String.join(", ", commands(top)));
    err.println("`tablecast --help` describes them; `tablecast COMMAND --help` describes one.");
    err.flush();
    return top.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** The commands {@code tablecast --help} lists, in its order. */
  static List<String> commands(CommandLine top) {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : top.getSubcommands().entrySet()) {
      if (!e.getValue().getCommandSpec().usageMessage().hidden()) {
        names.add(e.getKey());
      }
    }
    return names;
  }
}
