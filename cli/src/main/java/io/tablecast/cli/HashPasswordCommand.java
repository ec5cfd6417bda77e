package io.tablecast.cli;

import io.tablecast.server.auth.PasswordHasher;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Prints a {@link PasswordHasher} hash for {@code auth.principals[].password_hash}. The password
 * never comes from the command line (where other users and shell histories could read it): it is
 * prompted for twice without echo on a terminal, else read as the first line of standard input.
 */
@Command(
    name = "hash-password",
    mixinStandardHelpOptions = true,
    description = {
      "Print a password hash for auth.principals[].password_hash in the configuration "
          + "(PBKDF2-HMAC-SHA256, random salt).",
      "The password is prompted for without echo on a terminal (twice), or read as the first line of "
          + "standard input, e.g. from a secrets file: tablecast hash-password < password.txt. "
          + "It is never taken from the command line."
    })
final class HashPasswordCommand implements Callable<Integer> {

  /** The longest password accepted from standard input, in characters. */
  static final int MAX_PASSWORD_CHARS = 1024;

  @Option(
      names = "--iterations",
      paramLabel = "N",
      defaultValue = "" + PasswordHasher.MIN_ITERATIONS,
      description = "PBKDF2 iterations, at least the default (default: ${DEFAULT-VALUE})")
  int iterations;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (iterations < PasswordHasher.MIN_ITERATIONS) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(),
          "--iterations must be at least " + PasswordHasher.MIN_ITERATIONS + ", was " + iterations);
    }
    Console console = terminal();
    char[] password = console != null ? prompt(console) : firstLineOfStdin();
    if (password == null) {
      return 1;
    }
    try {
      if (password.length == 0) {
        spec.commandLine()
            .getErr()
            .println(
                "tablecast hash-password: the password is empty; "
                    + (console != null
                        ? "type one at the prompt"
                        : "write it as the first line of standard input"));
        spec.commandLine().getErr().flush();
        return 1;
      }
      spec.commandLine().getOut().println(PasswordHasher.hash(password, iterations));
      spec.commandLine().getOut().flush();
      return 0;
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  /** Asks twice; null (after saying why) when the answers differ or the input ended. */
  private char[] prompt(Console console) {
    char[] first = console.readPassword("Password: ");
    char[] second = first == null ? null : console.readPassword("Repeat password: ");
    try {
      if (first == null || second == null) {
        spec.commandLine()
            .getErr()
            .println("tablecast hash-password: no password read (end of input)");
        return null;
      }
      if (!Arrays.equals(first, second)) {
        spec.commandLine()
            .getErr()
            .println("tablecast hash-password: the two passwords differ; nothing printed");
        return null;
      }
      return first.clone();
    } finally {
      spec.commandLine().getErr().flush();
      if (first != null) {
        Arrays.fill(first, '\0');
      }
      if (second != null) {
        Arrays.fill(second, '\0');
      }
    }
  }

  /** The first line of standard input (UTF-8, without its line end), or null when too long. */
  private char[] firstLineOfStdin() throws IOException {
    Reader in = new InputStreamReader(System.in, StandardCharsets.UTF_8);
    char[] buf = new char[MAX_PASSWORD_CHARS + 1];
    int n = 0;
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (n == buf.length) {
        Arrays.fill(buf, '\0');
        spec.commandLine()
            .getErr()
            .println(
                "tablecast hash-password: the first line of standard input is longer "
                    + "than "
                    + MAX_PASSWORD_CHARS
                    + " characters");
        spec.commandLine().getErr().flush();
        return null;
      }
      buf[n++] = (char) c;
    }
    if (n > 0 && buf[n - 1] == '\r') {
      n--;
    }
    char[] out = Arrays.copyOf(buf, n);
    Arrays.fill(buf, '\0');
    return out;
  }

  /** The console when standard input and output are a terminal, else null. */
  @SuppressWarnings(
      "SystemConsoleNull") // null is Java 17..21's answer; isTerminal() below is Java 22+'s
  private static Console terminal() {
    Console console = System.console();
    if (console == null) {
      return null;
    }
    try {
      // Java 22+ returns a Console also when the streams are redirected; isTerminal tells
      Method isTerminal = Console.class.getMethod("isTerminal");
      return (Boolean) isTerminal.invoke(console) ? console : null;
    } catch (NoSuchMethodException e) {
      return console; // Java 17..21: a console exists only for a terminal
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }
}
