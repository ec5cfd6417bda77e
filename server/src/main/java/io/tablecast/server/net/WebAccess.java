package io.tablecast.server.net;

import java.util.List;
import java.util.Set;

/**
 * What the HTTP side of the port lets in, which the server may replace while it serves ({@code
 * ConfigFileWatch}): the bearer token {@code GET /metrics} requires ({@code metrics_token}, also
 * the console's password on a server without {@code auth}) and the origins of the web pages that
 * may open a WebSocket session ({@code allowed_origins}, {@link WebSocketOrigins}). Each request
 * reads them as they are when it arrives; a WebSocket session opened before a change goes on (its
 * origin is checked at its handshake only). Thread-safe.
 */
public final class WebAccess {

  /** The origins listed ({@link WebSocketOrigins#normalize}d), and whether {@code "*"} is. */
  record Origins(Set<String> listed, boolean any) {
    static Origins of(List<String> allowed) {
      return new Origins(
          Set.copyOf(
              allowed.stream()
                  .filter(o -> !o.equals("*"))
                  .map(WebSocketOrigins::normalize)
                  .toList()),
          allowed.contains("*"));
    }
  }

  private volatile String metricsToken;
  private volatile Origins origins;

  /**
   * @param metricsToken the bearer token {@code GET /metrics} requires; null = open to anyone
   * @param allowedOrigins the {@code allowed_origins} setting: origins, or {@code "*"} for any
   */
  public WebAccess(String metricsToken, List<String> allowedOrigins) {
    this.metricsToken = metricsToken;
    this.origins = Origins.of(allowedOrigins);
  }

  /** The bearer token {@code GET /metrics} requires now; null = open to anyone. */
  public String metricsToken() {
    return metricsToken;
  }

  /** The origins allowed now. */
  Origins origins() {
    return origins;
  }

  /** From now on, {@code metricsToken} and {@code allowedOrigins} ({@link #WebAccess}). */
  public void replace(String metricsToken, List<String> allowedOrigins) {
    Origins next = Origins.of(allowedOrigins);
    this.metricsToken = metricsToken;
    this.origins = next;
  }
}
