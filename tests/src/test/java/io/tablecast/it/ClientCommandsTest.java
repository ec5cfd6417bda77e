package io.tablecast.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.cli.TablecastCommand;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code tablecast watch} and {@code dump} as users meet them: through {@code bin/tablecast} (a
 * pipe closed under them, the logging as shipped, the server from the environment) and against a
 * server that wants credentials. Their output itself: {@link CommandLineTest}.
 */
class ClientCommandsTest {
  private static final List<String> ITEMS = CommandLineTest.ITEMS;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * {@code tablecast watch T | head -n 1}, as a user pipes it: once head has its line and exits,
   * the next batch's write finds the pipe closed and watch ends (it ran on until Ctrl-C before).
   * One database: the launcher and the pipe do not depend on it.
   */
  @Test
  void watchEndsWhenWhatReadsItsOutputCloses() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_watch_pipe", ITEMS, "items")) {
      Path launcher = RepoRoot.path().resolve("bin/tablecast");
      Path err = dir.resolve("watch.err");
      ProcessBuilder pb =
          new ProcessBuilder(
                  "bash",
                  "-c",
                  "set -o pipefail; '"
                      + launcher
                      + "' watch "
                      + p.db.table("items")
                      + " --server "
                      + p.address()
                      + " | head -n 1")
              .redirectError(err.toFile());
      pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
      pb.environment().put("TABLECAST_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
      Process pipeline = pb.start();
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pipeline.isAlive() && System.nanoTime() < deadline) {
          p.sql("UPDATE items SET price = price + 1 WHERE id = 1"); // a batch each
          pipeline.waitFor(200, TimeUnit.MILLISECONDS);
        }
        assertThat(pipeline.isAlive())
            .as("watch still running after head exited; its stderr:%n%s", Files.readString(err))
            .isFalse();
        assertThat(pipeline.exitValue()).as(Files.readString(err)).isZero();
        assertThat(new String(pipeline.getInputStream().readAllBytes(), UTF_8))
            .startsWith("{\"table\":\"" + p.db.table("items") + "\",\"op\":\"UPDATE\"")
            .hasLineCount(1);
      } finally {
        pipeline.descendants().forEach(ProcessHandle::destroyForcibly);
        pipeline.destroyForcibly().waitFor();
      }
    }
  }

  /**
   * {@code bin/tablecast dump} as users run it (the shipped logging): its standard error holds
   * nothing of the client library's connection and snapshot lines, which {@code
   * TABLECAST_LOG_LEVEL=INFO} brings back.
   */
  @Test
  void dumpLogsTheClientLibrarysLinesOnlyWhenAsked() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_dump_quiet", ITEMS, "items")) {
      String quiet = launcherDump(Map.of(), "dump", p.db.table("items"), "--server", p.address());
      assertThat(quiet).doesNotContain("i.t.client").doesNotContain("INFO");
      String asked =
          launcherDump(
              Map.of("TABLECAST_LOG_LEVEL", "INFO"),
              "dump",
              p.db.table("items"),
              "--server",
              p.address());
      assertThat(asked).contains("i.t.client.internal.ServerSession - connected to");
    }
  }

  /** Without {@code --server}, the client commands connect to {@code TABLECAST_SERVER}. */
  @Test
  void theServerMayComeFromTheEnvironment() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_dump_env", ITEMS, "items")) {
      launcherDump(Map.of("TABLECAST_SERVER", p.address()), "dump", p.db.table("items"));
    }
  }

  /**
   * {@code tablecast dump T > file} on a full disk ({@code /dev/full}) fails, naming why: it exited
   * 0 with the rows lost, as every command did whose output could not be written.
   */
  @Test
  void aDumpThatCannotBeWrittenFailsSayingWhy() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_dump_full", ITEMS, "items")) {
      Path err = Files.createTempFile(dir, "dump", ".err");
      Process dump =
          launcher(
                  Map.of("TABLECAST_SERVER", p.address()),
                  Path.of("/dev/full"),
                  err,
                  "dump",
                  p.db.table("items"))
              .start();
      try {
        assertThat(dump.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(err)).isTrue();
        assertThat(dump.exitValue()).as(Files.readString(err)).isEqualTo(1);
        assertThat(Files.readString(err))
            .contains("tablecast dump: cannot write the output: No space left on device");
      } finally {
        dump.destroyForcibly();
      }
    }
  }

  /**
   * A table whose capture stopped (its trigger disabled, and the server not allowed to repair it)
   * is stale: watch says so on standard error, and again once it follows its table; dump prints its
   * rows, says they may differ from the table and exits 3. Both printed on as if the rows were
   * current before.
   */
  @Test
  void watchAndDumpSayWhenTheirTableMayDifferFromTheirRows() throws Exception {
    Pipeline p = Pipeline.create(Kind.POSTGRESQL, "cli_stale", ITEMS, "items");
    SourceConfig checking = p.installedSourceThatDoesNotRepair();
    try (p) {
      p.startServer(b -> b.source(checking));
      String table = p.db.table("items");
      StringWriter watchErr = new StringWriter();
      CommandLine watch = TablecastCommand.commandLine();
      watch.setOut(new PrintWriter(new StringWriter(), true));
      watch.setErr(new PrintWriter(watchErr, true));
      Thread watching =
          new Thread(() -> watch.execute("watch", table, "--server", p.address()), "watch");
      watching.setDaemon(true);
      watching.start();
      try {
        await().atMost(WAIT).until(() -> watchErr.toString().contains("watching " + table));
        p.sql("ALTER TABLE items DISABLE TRIGGER USER");
        String mayDiffer =
            "tablecast watch: the mirror of " + table + " may differ from its table: ";
        await().atMost(WAIT).until(() -> watchErr.toString().contains(mayDiffer));
        assertThat(watchErr.toString()).contains("tablecast install");

        StringWriter dumpOut = new StringWriter();
        StringWriter dumpErr = new StringWriter();
        CommandLine dump = TablecastCommand.commandLine();
        dump.setOut(new PrintWriter(dumpOut, true));
        dump.setErr(new PrintWriter(dumpErr, true));
        assertThat(dump.execute("dump", table, "--server", p.address()))
            .as(dumpErr.toString())
            .isEqualTo(3);
        assertThat(dumpOut.toString().lines()).hasSize(3);
        assertThat(dumpErr.toString())
            .contains(
                "tablecast dump: the rows of " + table + " printed may differ from its table: ")
            .contains("tablecast install");

        Pipeline.installCapture(checking); // the operator runs install
        await()
            .atMost(WAIT)
            .until(
                () ->
                    watchErr
                        .toString()
                        .contains(
                            "tablecast watch: the mirror of "
                                + table
                                + " follows its table again"));
      } finally {
        watching.interrupt();
        watching.join(10_000);
      }
    }
  }

  /**
   * Runs {@code bin/tablecast} with {@code args} and these environment variables (and no {@code
   * TABLECAST_LOG_LEVEL} of the build's own), expecting it to end well and print the three rows of
   * items as JSON lines; returns its standard error.
   */
  private String launcherDump(Map<String, String> env, String... args) throws Exception {
    Path err = Files.createTempFile(dir, "dump", ".err");
    Path out = Files.createTempFile(dir, "dump", ".out");
    Process dump = launcher(env, out, err, args).start();
    try {
      assertThat(dump.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(err)).isTrue();
      assertThat(dump.exitValue()).as(Files.readString(err)).isZero();
      assertThat(Files.readAllLines(out)).as(Files.readString(err)).hasSize(3);
      return Files.readString(err);
    } finally {
      dump.destroyForcibly();
    }
  }

  /** {@code bin/tablecast args} writing to {@code out} and {@code err}, with {@code env}. */
  private static ProcessBuilder launcher(
      Map<String, String> env, Path out, Path err, String... args) {
    List<String> command = new java.util.ArrayList<>();
    command.add(RepoRoot.path().resolve("bin/tablecast").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectError(err.toFile()).redirectOutput(out.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("TABLECAST_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
    pb.environment().remove("TABLECAST_LOG_LEVEL");
    pb.environment().remove("TABLECAST_SERVER");
    pb.environment().putAll(env);
    return pb;
  }

  /**
   * A server that requires authentication: without credentials, or with wrong ones, dump says which
   * options give them; with them it dumps.
   */
  @Test
  void dumpSaysWhichOptionsGiveTheCredentialsAServerRequires() {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "cli_auth", ITEMS, "items")) {
      p.startServerWithPrincipal("app", "app-pw", AccessPolicy.ALLOW_ALL);
      String table = p.db.table("items");
      Cli none = Cli.run("dump", table, "--server", p.address());
      assertThat(none.exitCode()).isEqualTo(1);
      assertThat(none.err())
          .contains("AUTHENTICATION_FAILED")
          .contains(
              "the server requires authentication: give --user with --password (or"
                  + " TABLECAST_PASSWORD), or --token (or TABLECAST_TOKEN)");
      Cli wrong =
          Cli.run("dump", table, "--server", p.address(), "--user", "app", "--password", "x");
      assertThat(wrong.exitCode()).isEqualTo(1);
      assertThat(wrong.err())
          .contains("AUTHENTICATION_FAILED")
          .contains("check --user and --password (or TABLECAST_PASSWORD), or --token");
      Cli right =
          Cli.run("dump", table, "--server", p.address(), "--user", "app", "--password", "app-pw");
      assertThat(right.exitCode()).as(right.err()).isZero();
      assertThat(right.out().lines()).hasSize(3);
    }
  }
}
