package io.tablecast.bench;

import io.tablecast.server.ServerConfig;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The clients outside this JVM whose commit-to-visible latency figure 1 measures ({@code --systems
 * watch,node,browser}), each started by {@link LineFedSubject} against a server of its own. Each
 * owns how it is launched and how its lines reach the bench; a missing program fails with how to
 * install it.
 */
enum ExternalClient {
  /** {@code bin/tablecast watch TABLE}: its JSON change lines on a pipe. */
  WATCH("watch", "Tablecast, tablecast watch") {
    @Override
    void launch(Rig rig, LineFedSubject subject) throws IOException {
      Path root = TriggerOverheadFigure.repoRoot();
      Path jar = root.resolve(TriggerOverheadFigure.CLI_JAR);
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(
            jar + " is missing: build it with ./mvnw -q -DskipTests package");
      }
      subject.follow(
          new ProcessBuilder(
                  root.resolve("bin/tablecast").toString(),
                  "watch",
                  rig.table(),
                  "--server",
                  rig.address(),
                  "--timeout",
                  "90s")
              .directory(root.toFile()),
          true,
          "watching ");
    }
  },

  /** {@code node bench/js/latency-client.mjs}: client-js in Node, its lines on a pipe. */
  NODE("node", "Tablecast, Node client") {
    @Override
    void launch(Rig rig, LineFedSubject subject) throws IOException {
      Path root = TriggerOverheadFigure.repoRoot();
      subject.follow(
          new ProcessBuilder(
                  program("node", "apt-get install nodejs"),
                  "--experimental-websocket",
                  "bench/js/latency-client.mjs",
                  "ws://" + rig.address() + "/ws",
                  rig.table())
              .directory(root.toFile()),
          true,
          null);
    }
  },

  /**
   * {@code bench/js/latency-page.html} in headless Debian Chromium, served by the Tablecast server;
   * its lines over a WebSocket to the bench ({@link VersionWebSocketEndpoint}).
   */
  BROWSER("browser", "Tablecast, browser") {
    @Override
    void configureServer(ServerConfig.Builder b) {
      Path root = TriggerOverheadFigure.repoRoot();
      b.set("static_dir", root.resolve("bench/js"))
          .set("static_client_dir", root.resolve("client-js/src"));
    }

    @Override
    void launch(Rig rig, LineFedSubject subject) throws IOException, InterruptedException {
      String chromium = System.getenv("CHROMIUM");
      if (chromium == null) {
        chromium = program("chromium", "apt-get install chromium, or set CHROMIUM");
      } else if (!Files.isExecutable(Path.of(chromium))) {
        throw new IllegalStateException(
            "CHROMIUM=" + chromium + " is not an executable: apt-get install chromium");
      }
      VersionWebSocketEndpoint endpoint =
          subject.closeWith(VersionWebSocketEndpoint.start(subject));
      Path profile = Files.createTempDirectory("tablecast-bench-chromium");
      subject.closeWith(() -> deleteTree(profile));
      String page =
          "http://"
              + rig.address()
              + "/latency-page.html?table="
              + rig.table()
              + "&report="
              + endpoint.url();
      subject.follow(
          new ProcessBuilder(
              chromium,
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              "--disable-background-networking",
              "--no-first-run",
              "--enable-logging=stderr", // the page's console, in a failure's message
              "--user-data-dir=" + profile,
              page),
          false,
          null);
    }
  };

  private final String option;
  private final String label;

  ExternalClient(String option, String label) {
    this.option = option;
    this.label = label;
  }

  /** The {@code --systems} value. */
  String option() {
    return option;
  }

  /** The name in the report. */
  String label() {
    return label;
  }

  /** Settings of the server this client connects to (none by default). */
  void configureServer(ServerConfig.Builder b) {}

  /** Starts the client; it marks {@code subject} ready once its mirror is. */
  abstract void launch(Rig rig, LineFedSubject subject) throws IOException, InterruptedException;

  static List<String> options() {
    return Stream.of(values()).map(ExternalClient::option).toList();
  }

  static ExternalClient forOption(String option) {
    for (ExternalClient c : values()) {
      if (c.option.equals(option)) {
        return c;
      }
    }
    throw new IllegalArgumentException("no external client '" + option + "'");
  }

  /** {@code name} found on the PATH, else an error saying how to install it. */
  static String program(String name, String install) {
    String path = System.getenv("PATH");
    java.util.StringTokenizer dirs =
        new java.util.StringTokenizer(path == null ? "" : path, File.pathSeparator);
    while (dirs.hasMoreTokens()) {
      Path candidate = Path.of(dirs.nextToken(), name);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new IllegalStateException(name + " not found on the PATH: install it (" + install + ")");
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
