package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A script of {@code tests/src/test/node} run by Node with the repository's JavaScript client: the
 * test reads its output line by line and writes lines to its input. Its errors go to the test's.
 */
final class NodeScript implements AutoCloseable {
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Writer input;

  private NodeScript(Process process) {
    this.process = process;
    this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (Exception e) {
                lines.add("READ FAILED " + e);
              }
            },
            "node-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Runs {@code tests/src/test/node/<script>} with the repository root and {@code args}.
   *
   * @throws AssertionError when client-js's dependencies are not installed
   */
  static NodeScript start(String script, String... args) throws Exception {
    Path root = ReadmeTest.repoRoot();
    assertThat(root.resolve("client-js/node_modules/ws"))
        .as("client-js dependencies (cd client-js && npm ci)")
        .exists();
    List<String> command = new ArrayList<>(List.of("node", "tests/src/test/node/" + script));
    command.add(root.toString());
    command.addAll(List.of(args));
    return new NodeScript(
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start());
  }

  /** The next line the script printed, within 60 s (null when none came). */
  String next() throws InterruptedException {
    return lines.poll(60, TimeUnit.SECONDS);
  }

  /** Writes {@code line} to the script's input. */
  void send(String line) throws Exception {
    input.write(line + "\n");
    input.flush();
  }

  /** Ends the script's input; true when it then exits within 30 s. */
  boolean endInput() throws Exception {
    input.close();
    return process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Whether the script exits within 30 s. */
  boolean exits() throws InterruptedException {
    return process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
