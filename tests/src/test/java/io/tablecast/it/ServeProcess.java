package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar cli/target/tablecast.jar serve --config FILE} (or {@code capture}) as a separate
 * process, as operators run it, its output in a log file. Closing it kills it.
 */
final class ServeProcess implements AutoCloseable {
  private static final Pattern STARTED = Pattern.compile("started on [^:]+:(\\d+)");

  private final Process process;
  private final Path log;

  private ServeProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts the built jar's {@code serve} on {@code config}, writing its output to {@code log}. */
  static ServeProcess start(Path config, Path log) throws IOException {
    return start("serve", config, log);
  }

  /** As {@link #start(Path, Path)}, with these options of the JVM besides ours. */
  static ServeProcess start(Path config, Path log, String... jvmOptions) throws IOException {
    return start("serve", config, log, jvmOptions);
  }

  /**
   * Starts the built jar's {@code capture} on {@code config}, writing its output to {@code log}.
   */
  static ServeProcess capture(Path config, Path log) throws IOException {
    return start("capture", config, log);
  }

  private static ServeProcess start(String command, Path config, Path log, String... jvmOptions)
      throws IOException {
    Path jar = RepoRoot.path().resolve("cli/target/tablecast.jar");
    assertThat(jar).as("the CLI jar (built by the cli module before the tests)").exists();
    List<String> line = new ArrayList<>();
    line.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    line.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
    line.addAll(List.of(jvmOptions));
    line.addAll(List.of("-jar", jar.toString(), command, "--config", config.toString()));
    Process process =
        new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ServeProcess(process, log);
  }

  /**
   * Waits until the log says the server started, or the process exited; returns the port it serves
   * on (fails, showing the log, when it did not start).
   */
  int awaitStarted(Duration within) {
    await().atMost(within).until(() -> !process.isAlive() || STARTED.matcher(log()).find());
    Matcher m = STARTED.matcher(log());
    assertThat(m.find()).as(log()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** What it wrote so far. */
  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code, once it exited. */
  int exitValue() {
    return process.exitValue();
  }

  /** Kills it and waits until it is gone. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }
}
