package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.ServerConfig;
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
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The example page (examples/web) open in headless Debian Chromium, driven line by line through
 * client-js/test-browser/live-table.e2e.mjs (playwright-core). Every answer is awaited with a
 * deadline, so a wedged node or browser fails the test instead of hanging the build; closing kills
 * node and the browser it started.
 */
final class LivePage implements AutoCloseable {
  /** The driver's own wait for an expectation; our deadline per answer adds a margin to it. */
  private static final Duration EXPECT = Duration.ofSeconds(20);

  private static final Duration ANSWER = EXPECT.plusSeconds(15);
  private static final Duration READY = Duration.ofSeconds(60);
  private static final String EOF = "\u0000eof";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process node;
  private final Writer in;
  private final BlockingQueue<String> out = new LinkedBlockingQueue<>();

  private LivePage(Process node) {
    this.node = node;
    this.in = new OutputStreamWriter(node.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readAnswers, "live-page-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts the pipeline's server serving the example page and the client, as its README says. */
  static void serveExample(Pipeline p, Consumer<ServerConfig.Builder> more) {
    Path root = ReadmeTest.repoRoot();
    p.startServer(
        b ->
            more.accept(
                b.set("static_dir", root.resolve("examples/web"))
                    .set("static_client_dir", root.resolve("client-js/src"))));
  }

  /**
   * For a page served by the server that opens its WebSocket through a proxy's port ({@link
   * #url(Pipeline, String, String)}): another origin for the server, accepted only when {@code
   * allowed_origins} lists it (docs/SECURITY.md, Browsers). Any origin here: the page's port is
   * known only once the server has started.
   */
  static void throughAProxy(ServerConfig.Builder b) {
    b.set("allowed_origins", java.util.List.of("*"));
  }

  /**
   * The page's address on the pipeline's server for an (unqualified) table; its WebSocket is the
   * server's own {@code /ws} (the page's default).
   */
  static String url(Pipeline p, String table) {
    return "http://127.0.0.1:" + p.server().port() + "/index.html?table=" + p.db.table(table);
  }

  /**
   * Like {@link #url(Pipeline, String)} with the WebSocket at {@code wsAddress} (a proxy's
   * host:port).
   */
  static String url(Pipeline p, String table, String wsAddress) {
    return url(p, table) + "&ws=ws://" + wsAddress + "/ws";
  }

  /** Opens the page at {@code url} and waits until it rendered its first snapshot. */
  static LivePage open(String url) throws IOException {
    return open(url, "#live[data-ready=\"true\"]");
  }

  /**
   * Opens the page at {@code url} and waits until {@code readySelector} matches (a page expected to
   * fail: {@code #status[data-state="error"]}).
   */
  static LivePage open(String url, String readySelector) throws IOException {
    Path root = ReadmeTest.repoRoot();
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    assertThat(Files.isExecutable(chromium))
        .as("Debian chromium at %s (apt-get install chromium; .ci/run installs it)", chromium)
        .isTrue();
    assertThat(root.resolve("client-js/node_modules/playwright-core"))
        .as("npm ci in client-js (the build does it)")
        .exists();
    ProcessBuilder pb =
        new ProcessBuilder("node", "client-js/test-browser/live-table.e2e.mjs", url)
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("EXPECT_TIMEOUT_MS", Long.toString(EXPECT.toMillis()));
    pb.environment().put("READY_SELECTOR", readySelector);
    LivePage page = new LivePage(pb.start());
    try {
      assertThat(page.answer(READY))
          .as("the page showed %s (%s)", readySelector, url)
          .isEqualTo("READY");
    } catch (RuntimeException | AssertionError e) {
      page.close();
      throw e;
    }
    return page;
  }

  /** Sends a driver command ({@code expect-row ...}, {@code freeze}, ...) and requires its OK. */
  void expect(String command) {
    send(command);
    assertThat(answer(ANSWER)).as(command).isEqualTo("OK");
  }

  /** Waits until the page shows exactly these rows: page key ({@code [1]}) → column → cell text. */
  void expectTable(Map<String, Map<String, String>> rows) {
    try {
      expect("expect-table " + JSON.writeValueAsString(rows));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Hides the tab and stops its JavaScript (see the driver's header). */
  void freeze() {
    expect("freeze");
  }

  /** Runs the tab's JavaScript again and shows it. */
  void thaw() {
    expect("thaw");
  }

  /** Ends the driver normally and requires exit code 0. */
  void quit() throws InterruptedException {
    send("quit");
    assertThat(node.waitFor(30, TimeUnit.SECONDS)).as("the driver exits after quit").isTrue();
    assertThat(node.exitValue()).as("driver exit code").isZero();
  }

  private void send(String command) {
    try {
      in.write(command + "\n");
      in.flush();
    } catch (IOException e) {
      throw new AssertionError("the driver is gone (" + command + "): " + e.getMessage(), e);
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
