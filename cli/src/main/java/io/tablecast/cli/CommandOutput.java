package io.tablecast.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Objects;

/**
 * The commands' standard output, which keeps the first error writing it. {@link System#out} and
 * picocli's writer swallow write errors: {@code tablecast dump T > file} on a full disk wrote part
 * of the rows and exited 0, as did {@code print-sql} and {@code hash-password}. Through this writer
 * a command's exit says so: {@link #exitCode} turns a success into a failure that names the error,
 * except when the reader closed a pipe ({@code | head}), which is the reader's choice. After the
 * first error nothing more is written: the rest of a large dump costs no system calls.
 */
final class CommandOutput extends PrintWriter {
  private final FailureKeeping stream;

  private CommandOutput(FailureKeeping stream, Charset charset) {
    super(new OutputStreamWriter(stream, charset));
    this.stream = stream;
  }

  /** Over the process's standard output, in the charset picocli would write it in. */
  static CommandOutput standardOutput() {
    return over(
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
        stdoutCharset());
  }

  /** The JDK's charset for standard output (a terminal's, when it is one), as picocli reads it. */
  private static Charset stdoutCharset() {
    for (String property : new String[] {"stdout.encoding", "sun.stdout.encoding"}) {
      String name = System.getProperty(property);
      if (name != null && Charset.isSupported(name)) {
        return Charset.forName(name);
      }
    }
    return Charset.defaultCharset();
  }

  /** Over {@code out} (tests). */
  static CommandOutput over(OutputStream out, Charset charset) {
    return new CommandOutput(new FailureKeeping(out), charset);
  }

  /** Whether a write failed; then nothing more reaches the output. */
  boolean failed() {
    return stream.failure != null;
  }

  /**
   * The exit code of a command that ended with {@code code} and wrote here: flushes; when a write
   * failed for another reason than a reader gone, says so on {@code err} (naming {@code command})
   * and makes a success a failure.
   */
  int exitCode(int code, String command, PrintWriter err) {
    flush();
    IOException failure = stream.failure;
    if (failure == null || readerGone(failure)) {
      return code;
    }
    err.println(command + ": cannot write the output: " + describe(failure));
    err.flush();
    return code == 0 ? 1 : code;
  }

  /** A closed pipe: {@code EPIPE}, which Java reports as "Broken pipe". */
  static boolean readerGone(IOException e) {
    return e.getMessage() != null && e.getMessage().startsWith("Broken pipe");
  }

  private static String describe(IOException e) {
    return Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName());
  }

  /** Keeps the first write error and fails every write after it without trying. */
  private static final class FailureKeeping extends OutputStream {
    private final OutputStream out;
    private volatile IOException failure;

    FailureKeeping(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      check();
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        throw failed(e);
      }
    }

    @Override
    public void flush() throws IOException {
      check();
      try {
        out.flush();
      } catch (IOException e) {
        throw failed(e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        flush();
      } finally {
        out.close();
      }
    }

    private void check() throws IOException {
      IOException f = failure;
      if (f != null) {
        throw f;
      }
    }

    private IOException failed(IOException e) {
      failure = e;
      return e;
    }
  }
}
