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
    java.util.Properties unset = new java.util.Properties();
    TablecastCommand.withoutNettyJfrUnlessAsked(unset);
    assertThat(unset.getProperty("io.netty.jfr.enabled")).isEqualTo("false");
    java.util.Properties asked = new java.util.Properties();
    asked.setProperty("io.netty.jfr.enabled", "true");
    TablecastCommand.withoutNettyJfrUnlessAsked(asked);
    assertThat(asked.getProperty("io.netty.jfr.enabled")).isEqualTo("true");
  }

  @Test
  void jdbcSocketsBlockInOneReadUnlessTheUserAskedOtherwise() {
    java.util.Properties unset = new java.util.Properties();
    TablecastCommand.withBlockingSocketsUnlessAsked(unset);
    assertThat(unset.getProperty("jdk.net.usePlainSocketImpl")).isEqualTo("true");
    java.util.Properties asked = new java.util.Properties();
    asked.setProperty("jdk.net.usePlainSocketImpl", "false");
    TablecastCommand.withBlockingSocketsUnlessAsked(asked);
    assertThat(asked.getProperty("jdk.net.usePlainSocketImpl")).isEqualTo("false");
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
