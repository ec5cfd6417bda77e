package io.tablecast.server.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code nats-server -js} for one test, on a free port, its JetStream store in a temporary
 * directory; it can be stopped and started again on the same port and store (NATS restarted while
 * capture and servers run). {@link #close} removes the directory: a suite starts about a hundred of
 * them, with stores of up to tens of megabytes. Fails with an install hint when {@code nats-server}
 * is missing: tests that need NATS never skip.
 */
public final class NatsServerProcess implements AutoCloseable {

  /** Where Debian's package installs it; another path via the {@code NATS_SERVER} variable. */
  static final String DEFAULT_BINARY = "/usr/sbin/nats-server";

  private final String binary;
  private final Path dir;
  private final int port;
  private final long maxPayload;
  private String extraConfig;
  private final boolean jetStream;
  private Process process;

  private NatsServerProcess(
      String binary, Path dir, int port, long maxPayload, String extraConfig, boolean jetStream) {
    this.binary = binary;
    this.dir = dir;
    this.port = port;
    this.maxPayload = maxPayload;
    this.extraConfig = extraConfig;
    this.jetStream = jetStream;
  }

  /**
   * Starts one whose {@code max_payload} is {@code maxPayload} bytes (NATS's default is 1 MiB; a
   * small one makes tests split batches into parts with little data).
   */
  public static NatsServerProcess start(long maxPayload) throws IOException {
    return start(maxPayload, "");
  }

  /**
   * Starts one with {@code extraConfig} added to its configuration file ({@code authorization { ...
   * }}, {@code tls { ... }}).
   */
  public static NatsServerProcess start(long maxPayload, String extraConfig) throws IOException {
    return start(maxPayload, extraConfig, true);
  }

  /** Starts one without JetStream: core NATS only, as a server started without {@code -js}. */
  public static NatsServerProcess startWithoutJetStream() throws IOException {
    return start(1 << 20, "", false);
  }

  private static NatsServerProcess start(long maxPayload, String extraConfig, boolean jetStream)
      throws IOException {
    String binary = System.getenv().getOrDefault("NATS_SERVER", DEFAULT_BINARY);
    if (!new File(binary).canExecute()) {
      throw new IllegalStateException(
          "nats-server not found at "
              + binary
              + ": the scale-out tests need a real NATS server with JetStream; install it "
              + "(apt-get install nats-server) or set NATS_SERVER to its path");
    }
    for (int attempt = 1; ; attempt++) {
      NatsServerProcess n =
          new NatsServerProcess(
              binary,
              Files.createTempDirectory("nats-js"),
              freePort(),
              maxPayload,
              extraConfig,
              jetStream);
      try {
        n.startProcess();
        return n;
      } catch (PortTaken e) {
        n.close();
        if (attempt == START_ATTEMPTS) {
          throw e;
        }
      } catch (IOException | RuntimeException e) {
        n.close();
        throw e;
      }
    }
  }

  /** Tries to start a process on new free ports when one was taken before it bound it. */
  static final int START_ATTEMPTS = 5;

  /**
   * A port picked free (a socket bound to port 0, then closed) and taken by another process before
   * nats-server bound it: the ports of outgoing connections come from the same range.
   */
  static final class PortTaken extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PortTaken(String log) {
      super("nats-server could not bind a port picked free: " + log);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** {@code nats://127.0.0.1:PORT}. */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  private void startProcess() throws IOException {
    Path conf = dir.resolve("nats.conf");
    Files.writeString(conf, "max_payload: " + maxPayload + "\n" + extraConfig + "\n");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binary, "-a", "127.0.0.1", "-p", Integer.toString(port), "-c", conf.toString()));
    if (jetStream) {
      cmd.addAll(List.of("-js", "-sd", dir.resolve("store").toString()));
    }
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nats.log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        String log = Files.readString(dir.resolve("nats.log"));
        if (log.contains("address already in use")) {
          throw new PortTaken(log);
        }
        throw new IllegalStateException("nats-server exited: " + log);
      }
      if (listening()) {
        return;
      }
      try {
        Thread.sleep(50); // the process is starting; nothing to wait on but its ports and log
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IllegalStateException("nats-server did not listen on " + port + " within 20 s");
  }

  /**
   * What nats-server logs once it listens for routes: it binds its route port after its client
   * port, so a node is up (and its route port known not taken) only when the log says so.
   */
  private static final String ROUTES_LISTENING = "Listening for route connections on";

  /** Its client port accepts and, in a cluster, its log says it listens for routes too. */
  private boolean listening() throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
    } catch (IOException notYet) {
      return false;
    }
    return !extraConfig.contains("cluster {")
        || Files.readString(dir.resolve("nats.log")).contains(ROUTES_LISTENING);
  }

  /** Kills the process (the store stays). */
  public void stop() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      process = null;
    }
  }

  /** Stops the process as an operator would (SIGTERM): it writes its store out and exits. */
  public void stopGracefully() throws InterruptedException {
    if (process != null) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      process = null;
    }
  }

  /** Starts it again on the same port and store. */
  public void restart() throws IOException {
    startProcess();
  }

  /**
   * Starts it again on the same port and store with {@code extraConfig} in place of the one it had
   * (NATS's users changed while it was down).
   */
  public void restart(String extraConfig) throws IOException {
    this.extraConfig = extraConfig;
    startProcess();
  }

  /** Kills the process and removes its directory, store and log included. */
  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteTree(dir);
  }

  /** Removes {@code root} and everything under it; what cannot be removed is left. */
  static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a file the process still wrote while it died: the rest is gone, the directory stays
    }
  }

  /** The directory of its configuration, log and store (tests). */
  Path dir() {
    return dir;
  }
}
