package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The server's operations console in headless Debian Chromium, driven through
 * client-js/test-browser/console.e2e.mjs (playwright-core): real page loads with HTTP Basic
 * credentials, real clicks, waits on what the page shows. Every answer is awaited with a deadline;
 * closing kills node and the browser it started.
 */
final class ConsolePage implements AutoCloseable {
  private static final Duration EXPECT = Duration.ofSeconds(20);
  private static final Duration ANSWER = EXPECT.plusSeconds(15);
  private static final Duration READY = Duration.ofSeconds(60);
  private static final String EOF = "\u0000eof";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process node;
  private final Writer in;
  private final BlockingQueue<String> out = new LinkedBlockingQueue<>();

  private ConsolePage(Process node) {
    this.node = node;
    this.in = new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readAnswers, "console-page-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts the driver and its browser. */
  static ConsolePage start() throws IOException {
    Path root = ReadmeTest.repoRoot();
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    assertThat(Files.isExecutable(chromium))
        .as("Debian chromium at %s (apt-get install chromium; .ci/run installs it)", chromium)
        .isTrue();
    assertThat(root.resolve("client-js/node_modules/playwright-core"))
        .as("npm ci in client-js (the build does it)")
        .exists();
    ProcessBuilder pb =
        new ProcessBuilder("node", "client-js/test-browser/console.e2e.mjs")
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("EXPECT_TIMEOUT_MS", Long.toString(EXPECT.toMillis()));
    ConsolePage page = new ConsolePage(pb.start());
    try {
      assertThat(page.answer(READY)).as("the driver started its browser").isEqualTo("READY");
    } catch (RuntimeException | AssertionError e) {
      page.close();
      throw e;
    }
    return page;
  }

  /**
   * Opens {@code url} in a fresh browser context, with HTTP Basic credentials when {@code user} is
   * not null, and returns the page's HTTP status.
   */
  int open(String url, String user, String password) {
    ObjectNode c = command("open").put("url", url);
    if (user != null) {
      c.put("user", user).put("password", password);
    }
    String a = ok(c);
    return Integer.parseInt(a.trim());
  }

  /** Clicks the element {@code selector}. */
  void click(String selector) {
    ok(command("click").put("selector", selector));
  }

  /** Waits until the first element {@code selector} shows exactly {@code text}. */
  void expectText(String selector, String text) {
    ok(command("expect-text").put("selector", selector).put("text", text));
  }

  /** Waits until the text of the first element {@code selector} contains {@code text}. */
  void expectContains(String selector, String text) {
    ok(command("expect-contains").put("selector", selector).put("text", text));
  }

  /** Waits until attribute {@code attr} of {@code selector} is a number of at least {@code min}. */
  void expectAtLeast(String selector, String attr, int min) {
    ok(command("expect-min").put("selector", selector).put("attr", attr).put("min", min));
  }

  /** Saves a PNG of the whole page. */
  void screenshot(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    ok(command("screenshot").put("path", file.toAbsolutePath().toString()));
  }

  /** Ends the driver normally and requires exit code 0. */
  void quit() throws InterruptedException {
    send("{\"cmd\":\"quit\"}");
    assertThat(node.waitFor(30, TimeUnit.SECONDS)).as("the driver exits after quit").isTrue();
    assertThat(node.exitValue()).as("driver exit code").isZero();
  }

  private static ObjectNode command(String name) {
    return JSON.createObjectNode().put("cmd", name);
  }

  /** Sends a command and returns what follows its OK. */
  private String ok(ObjectNode command) {
    send(command.toString());
    String a = answer(ANSWER);
    assertThat(a).as("%s", command).startsWith("OK");
    return a.substring(2);
  }

  private void send(String line) {
    try {
      in.write(line + "\n");
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the driver is gone (" + line + ")", e);
    }
  }

  private String answer(Duration deadline) {
    String line;
    try {
      line = out.poll(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the driver", e);
    }
    if (line == null) {
      throw new AssertionError(
          "no answer from the driver within " + deadline + " (see its stderr above)");
    }
    if (line.equals(EOF)) {
      throw new AssertionError("the driver exited before answering (see its stderr above)");
    }
    return line;
  }

  private void readAnswers() {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        out.add(line);
      }
    } catch (IOException e) {
      // the process was killed
    } finally {
      out.add(EOF);
    }
  }

  @Override
  public void close() {
    node.descendants().forEach(ProcessHandle::destroyForcibly); // the browser
    node.destroyForcibly();
    try {
      node.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
