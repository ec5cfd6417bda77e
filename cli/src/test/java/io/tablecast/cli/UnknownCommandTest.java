package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A command this version lacks is an error, with or without --help after it. */
class UnknownCommandTest {

  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    return run(TablecastCommand.commandLine(), args);
  }

  /** {@code args} run by {@code cl}: its exit code, and what it printed to each stream. */
  static Run run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void anUnknownCommandWithHelpIsAnErrorNamingItAndListingTheCommands() {
    // a plausible command that does not exist, and one that surely never will
    for (String name : new String[] {"replicate", "no-such-command-4f7c"}) {
      for (String[] args :
          new String[][] {{name, "--help"}, {name}, {name, "--config", "x.yaml"}}) {
        Run r = run(args);
        assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(2);
        assertThat(r.err())
            .as(String.join(" ", args))
            .contains("tablecast: unknown command '" + name + "'")
            .contains(
                "Commands: serve, capture, check, print-sql, install, uninstall, watch, dump, demo");
        assertThat(r.out()).as("no help printed as if it had worked").isEmpty();
      }
    }
  }

  @Test
  void helpAndKnownCommandsStillWork() {
    assertThat(run("--help").exitCode()).isZero();
    assertThat(run("--help").out()).contains("Commands:", "dump", "generate-completion");
    assertThat(run("dump", "--help").exitCode()).isZero();
    assertThat(run("capture", "--help").out()).contains("--config", "NATS JetStream");
    assertThat(run("--version").out()).startsWith("tablecast ");
  }

  /** docs/INSTALL.md shows what an unknown command does: its example must still be one. */
  @Test
  void theInstallGuidesExampleIsAnUnknownCommandAndSaysWhatTheGuideSays() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "INSTALL.md"));
    Matcher example =
        Pattern.compile(
                "An unknown command is an error: `tablecast (\\S+) --help` exits with\\s+status"
                    + " (\\d+), saying `([^`]+)`")
            .matcher(guide);
    assertThat(example.find()).as("the example in docs/INSTALL.md").isTrue();
    Run r = run(example.group(1), "--help");
    assertThat(r.exitCode()).as(example.group()).isEqualTo(Integer.parseInt(example.group(2)));
    assertThat(r.err()).as(example.group()).contains(example.group(3));
  }

  @Test
  void anUnknownOptionKeepsPicocliMessage() {
    Run r = run("--no-such-option");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("Unknown option: '--no-such-option'");
  }
}
