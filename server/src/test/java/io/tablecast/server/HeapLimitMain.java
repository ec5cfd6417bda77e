package io.tablecast.server;

import io.tablecast.server.capture.SourceConfig;
import java.util.List;

/**
 * A server process for {@link HeapLimitForkTest}: starts on {@code args[0]} (a JDBC URL) caching
 * {@code args[1]}, prints {@code STARTED} and stops, or prints {@code REFUSED: } and the message
 * and exits with 3. An {@link Error} (out of memory) is left to the JVM, which exits with 1.
 */
public final class HeapLimitMain {
  private HeapLimitMain() {}

  public static void main(String[] args) throws InterruptedException {
    ServerConfig config =
        ServerConfig.builder()
            .listen("127.0.0.1", 0)
            .source(new SourceConfig(args[0], null, null, List.of(args[1]), true, null, null))
            .build();
    try (TablecastServer server = TablecastServer.start(config)) {
      System.out.println("STARTED on port " + server.port());
    } catch (IllegalStateException e) {
      System.out.println("REFUSED: " + e.getMessage());
      System.exit(3);
    }
  }
}
