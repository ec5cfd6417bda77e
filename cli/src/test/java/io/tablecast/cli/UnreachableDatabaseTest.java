package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A database that cannot be reached: every command that needs it ends at once with status 1, naming
 * the database (a password in its URL masked) and why, not the whole configuration.
 */
class UnreachableDatabaseTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"serve", "check", "install", "print-sql"})
  void theCommandNamesTheDatabaseAndWhy(String command) throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort(); // nothing listens there once closed
    }
    Path yaml = dir.resolve("tablecast.yaml");
    Files.writeString(
        yaml,
        "listen: { host: 127.0.0.1, port: 0 }\nsource:\n  jdbc_url: jdbc:postgresql://127.0.0.1:"
            + port
            + "/app?user=app&password=hunter2\ncached_tables: [public.t]\n");
    UnknownCommandTest.Run run = UnknownCommandTest.run(command, "--config", yaml.toString());
    assertThat(run.exitCode()).isEqualTo(1);
    String database = "jdbc:postgresql://127.0.0.1:" + port + "/app?user=app&password=***: ";
    assertThat(run.err())
        .startsWith(
            "tablecast "
                + command
                + (command.equals("serve")
                    ? ": cannot open the change source on "
                    : ": cannot connect to ")
                + database)
        .contains("refused")
        .doesNotContain("hunter2")
        .doesNotContain("SourceConfig[");
  }
}
