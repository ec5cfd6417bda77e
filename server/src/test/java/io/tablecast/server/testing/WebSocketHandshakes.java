package io.tablecast.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * WebSocket handshakes on a server's {@code /ws}, as a browser's page of some origin makes them.
 */
public final class WebSocketHandshakes {
  private WebSocketHandshakes() {}

  /**
   * The status of a handshake on {@code /ws} of the server on {@code port} with {@code origin}
   * (none when null): 101 when the session opened (it is closed at once). A 403 must name {@code
   * allowed_origins} and the origin.
   */
  public static int status(int port, String origin) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    WebSocket.Builder b = http.newWebSocketBuilder();
    if (origin != null) {
      b.header("Origin", origin);
    }
    try {
      WebSocket ws =
          b.buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"), new WebSocket.Listener() {})
              .get(10, TimeUnit.SECONDS);
      ws.abort();
      return 101;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof WebSocketHandshakeException h) {
        if (h.getResponse().statusCode() == 403) {
          assertThat(String.valueOf(h.getResponse().body()))
              .contains("allowed_origins")
              .contains(origin);
        }
        return h.getResponse().statusCode();
      }
      throw new CompletionException(e.getCause());
    }
  }
}
