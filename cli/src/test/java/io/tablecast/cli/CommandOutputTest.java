package io.tablecast.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A command whose output cannot be written says so in its exit (a dump to a full disk exited 0 with
 * part of its rows); a reader that closed the pipe ({@code | head}) is no failure. The real full
 * disk, through {@code bin/tablecast}: {@code ClientCommandsTest}.
 */
class CommandOutputTest {

  @Test
  void aCommandWhoseOutputCannotBeWrittenFailsNamingWhy() {
    Failing disk = new Failing(100, "No space left on device");
    StringWriter err = new StringWriter();
    int code = run(disk, err, "generate-completion");
    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            "tablecast generate-completion: cannot write the output: No space left on device"
                + System.lineSeparator());
    assertThat(disk.attempts.get())
        .as("nothing is tried after the first failure, however much is left to print")
        .isEqualTo(1);
  }

  @Test
  void aReaderThatClosedThePipeIsNoFailure() {
    StringWriter err = new StringWriter();
    assertThat(run(new Failing(100, "Broken pipe"), err, "generate-completion")).isZero();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void anOutputThatTakesEverythingChangesNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    assertThat(run(bytes, err, "--version")).isZero();
    assertThat(bytes.toString(UTF_8)).isNotEmpty();
    assertThat(err.toString()).isEmpty();
    assertThat(run(new Failing(0, "No space left on device"), err, "no-such-command"))
        .as("a command that failed keeps its own exit code")
        .isEqualTo(2);
  }

  private static int run(OutputStream out, StringWriter err, String... args) {
    CommandLine cl = TablecastCommand.commandLine(args[0]);
    cl.setErr(new PrintWriter(err, true));
    return TablecastCommand.execute(cl, args, CommandOutput.over(out, UTF_8));
  }

  /** Takes {@code capacity} bytes, then fails every write with {@code message}. */
  private static final class Failing extends OutputStream {
    private final String message;
    private int left;
    final AtomicInteger attempts = new AtomicInteger();

    Failing(int capacity, String message) {
      this.left = capacity;
      this.message = message;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len > left) {
        attempts.incrementAndGet();
        throw new IOException(message);
      }
      left -= len;
    }
  }
}
