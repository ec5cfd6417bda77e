package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.auth.PasswordHasher;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code tablecast hash-password}: run as a separate process, the way an operator runs it, with the
 * password on standard input (not a terminal, so no prompt). The printed hash is what the server's
 * authenticator verifies.
 */
class HashPasswordCommandTest {

  private record Run(int exitCode, String out, String err) {}

  /** Runs {@code tablecast args...} in a new JVM with {@code stdin} as its standard input. */
  private static Run launch(String stdin, String... args) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                "io.tablecast.cli.TablecastCommand"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).start();
    CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("tablecast " + args[0] + " did not end within 60 s");
    }
    return new Run(p.exitValue(), out.join(), err.join());
  }

  private static String read(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void hashOfTheFirstLineOfStandardInputIsAcceptedByTheServer() throws Exception {
    String password = "s3cret pässwörd with spaces";
    Run run = launch(password + "\r\nsecond line is ignored\n", "hash-password");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines()).hasSize(1);
    String hash = run.out().strip();
    assertThat(hash)
        .startsWith(PasswordHasher.SCHEME + "$" + PasswordHasher.MIN_ITERATIONS + "$")
        .doesNotContain(password);
    assertThat(PasswordHasher.verify(password.toCharArray(), hash)).isTrue();
    assertThat(PasswordHasher.verify("s3cret".toCharArray(), hash)).isFalse();

    ConfigAuthenticator server =
        new ConfigAuthenticator(
            List.of(new ConfigAuthenticator.PrincipalEntry("alice", hash, AccessPolicy.ALLOW_ALL)),
            null,
            null);
    assertThat(
            server
                .authenticate(
                    new Message.Hello(Message.PROTOCOL_VERSION, "t", "alice", password, null))
                .name())
        .isEqualTo("alice");
  }

  @Test
  void emptyInputPrintsNoHashAndFails() throws Exception {
    Run run = launch("", "hash-password");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).contains("password is empty");
  }

  @Test
  void passwordOnTheCommandLineIsRefused() {
    Cli help = Cli.run("hash-password", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out().replaceAll("\\s+", " ")).contains("never taken from the command line");
    Cli run = Cli.run("hash-password", "s3cret");
    assertThat(run.exitCode()).isEqualTo(2); // picocli: usage error, before anything is read
    assertThat(run.out()).doesNotContain(PasswordHasher.SCHEME);
    assertThat(run.err()).contains("Unmatched argument");
  }

  @Test
  void fewerIterationsThanTheMinimumAreRefused() {
    Cli run = Cli.run("hash-password", "--iterations", "1000");
    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err())
        .contains("--iterations must be at least " + PasswordHasher.MIN_ITERATIONS);
  }
}
