package io.tablecast.cli;

import static io.tablecast.cli.UnknownCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.cli.UnknownCommandTest.Run;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server role's command line ({@code main} builds only that subcommand's model) is the full
 * command line's to its users: the same help, the same errors, the same exit codes.
 */
class TablecastCommandTest {

  @TempDir Path dir;

  @Test
  void nettysJfrEventsAreOffUnlessTheUserAskedForThem() {
    assertSetUnlessAsked(
        TablecastCommand::withoutNettyJfrUnlessAsked, "io.netty.jfr.enabled", "false", "true");
  }

  @Test
  void jdbcSocketsBlockInOneReadUnlessTheUserAskedOtherwise() {
    assertSetUnlessAsked(
        TablecastCommand::withBlockingSocketsUnlessAsked,
        "jdk.net.usePlainSocketImpl",
        "true",
        "false");
  }

  /** {@code setter} puts {@code ours} under {@code key} when unset, and keeps what was asked. */
  private static void assertSetUnlessAsked(
      java.util.function.Consumer<java.util.Properties> setter,
      String key,
      String ours,
      String asked) {
    java.util.Properties unset = new java.util.Properties();
    setter.accept(unset);
    assertThat(unset.getProperty(key)).isEqualTo(ours);
    java.util.Properties given = new java.util.Properties();
    given.setProperty(key, asked);
    setter.accept(given);
    assertThat(given.getProperty(key)).isEqualTo(asked);
  }

  @Test
  void aServerRoleGetsItsOwnSubcommandOnlyAndAnyOtherCommandTheWholeCommandLine() {
    assertThat(TablecastCommand.commandLine("serve").getSubcommands()).containsOnlyKeys("serve");
    assertThat(TablecastCommand.commandLine("capture").getSubcommands())
        .containsOnlyKeys("capture");
    for (String first : new String[] {"watch", "install", "--help", "servee", null}) {
      assertThat(TablecastCommand.commandLine(first).getSubcommands().keySet())
          .as(String.valueOf(first))
          .isEqualTo(TablecastCommand.commandLine().getSubcommands().keySet());
    }
  }

  @Test
  void aServerRolesHelpAndErrorsAreTheWholeCommandLines() {
    String missing = dir.resolve("no-such.yaml").toString();
    String[][] cases = {
      {"serve", "--help"},
      {"serve"}, // --config missing
      {"serve", "--config", missing}, // a file that is not there: the execution's error
      {"serve", "--config", missing, "--no-such-option"},
      {"serve", "--config"},
      {"capture", "--help"},
      {"capture"},
      {"capture", "--config", missing},
      {"capture", "--config", missing, "extra"},
    };
    for (String[] args : cases) {
      Run whole = run(TablecastCommand.commandLine(), args);
      Run role = run(TablecastCommand.commandLine(args[0]), args);
      assertThat(role).as(String.join(" ", args)).isEqualTo(whole);
      assertThat(whole.out() + whole.err()).as(String.join(" ", args)).contains("tablecast");
    }
  }
}
