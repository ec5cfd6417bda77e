package io.tablecast.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@code npm run dev} of examples/react-vite: Vite's dev server on a free loopback port, forwarding
 * {@code /ws} to a Tablecast server ({@code TABLECAST_URL}, as the example's README says). Closing
 * kills it.
 */
final class ViteDevServer implements AutoCloseable {
  private static final Duration START = Duration.ofSeconds(60);

  private final Process vite;
  private final int port;

  private ViteDevServer(Process vite, int port) {
    this.vite = vite;
    this.port = port;
  }

  /** Starts the dev server of {@code exampleDir} forwarding {@code /ws} to {@code tablecastUrl}. */
  static ViteDevServer start(Path exampleDir, String tablecastUrl) throws IOException {
    int port = freePort();
    ProcessBuilder pb =
        new ProcessBuilder(
                "node",
                "node_modules/vite/bin/vite.js",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--strictPort")
            .directory(exampleDir.toFile())
            .redirectErrorStream(true);
    pb.environment().put("TABLECAST_URL", tablecastUrl);
    // plain output in the log: with CI set, Vite colours its banner (the port in bold)
    pb.environment().put("NO_COLOR", "1");
    ViteDevServer server = new ViteDevServer(pb.start(), port);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(
                          server.vite.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  System.err.println("[vite] " + line);
                }
              } catch (IOException e) {
                System.err.println("[vite] output: " + e);
              }
            },
            "vite-output");
    reader.setDaemon(true);
    reader.start();
    // ready when the port accepts connections, not when a banner line matches: the banner's
    // form changes with the terminal, CI variables and Vite versions
    long deadline = System.nanoTime() + START.toNanos();
    while (!accepts(port)) {
      if (!server.vite.isAlive()) {
        server.close();
        throw new AssertionError(
            "vite exited with " + server.vite.exitValue() + " before listening on " + port);
      }
      if (System.nanoTime() > deadline) {
        server.close();
        throw new AssertionError("vite's dev server did not listen on " + port + " in " + START);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        server.close();
        throw new AssertionError("interrupted starting vite", e);
      }
    }
    return server;
  }

  /** The dev server's address, e.g. {@code http://127.0.0.1:5173}. */
  String url() {
    return "http://127.0.0.1:" + port;
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    vite.descendants().forEach(ProcessHandle::destroyForcibly);
    vite.destroyForcibly();
    try {
      vite.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
