package io.tablecast.server.stream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.auth.BearerToken;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;

/**
 * {@code GET /health} and {@code GET /metrics} of a {@code capture} process, on its {@code listen}
 * address, for load balancers, orchestrators and Prometheus. A standby is healthy (it is ready to
 * take over); a process whose standby loop failed or whose tail stopped is not. {@code /health}
 * says the role and nothing more; {@code /metrics} (behind {@code metrics_token} when set) has the
 * numbers. The JDK's own HTTP server: two read-only routes need no more.
 */
public final class CaptureEndpoints implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(CaptureEndpoints.class);
  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer http;

  /** The bearer token {@code /metrics} requires now; null = open. */
  private volatile String metricsToken;

  private CaptureEndpoints(HttpServer http, String metricsToken) {
    this.http = http;
    this.metricsToken = metricsToken;
  }

  /**
   * Listens on {@code host:port} (port 0: any free port).
   *
   * @param metricsToken the bearer token {@code /metrics} requires; null = open
   * @throws IOException when the address cannot be bound
   */
  public static CaptureEndpoints start(
      String host, int port, CaptureState state, String metricsToken) throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Gauge.builder("tablecast.capture.leader", state, s -> s.leading() ? 1 : 0)
        .description("1 while this capture holds the lease and publishes, 0 while it waits")
        .register(registry);
    FunctionCounter.builder("tablecast.capture.terms", state, CaptureState::terms)
        .description("times this capture took the lease")
        .register(registry);
    Gauge.builder("tablecast.capture.stream.sequence", state, CaptureState::lastSequence)
        .description("stream sequence of the last message this capture stored")
        .register(registry);
    Gauge.builder("tablecast.capture.waiting.for.nats", state, s -> s.waitingForNats() ? 1 : 0)
        .description(
            "1 while NATS cannot be reached or JetStream is not ready, or while a batch NATS did"
                + " not acknowledge is being published again")
        .register(registry);
    HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
    CaptureEndpoints endpoints = new CaptureEndpoints(http, metricsToken);
    http.createContext("/health", exchange -> health(exchange, state));
    http.createContext("/metrics", exchange -> metrics(exchange, registry, endpoints.metricsToken));
    http.start();
    LOG.info(
        "capture health and metrics at http://{}:{}/health", host, http.getAddress().getPort());
    return endpoints;
  }

  /**
   * From now on, {@code /metrics} requires {@code metricsToken} ({@code metrics_token} rotated in
   * the configuration file while capture runs); null opens it.
   */
  public void replaceMetricsToken(String metricsToken) {
    this.metricsToken = metricsToken;
  }

  /** The port listened on. */
  public int port() {
    return http.getAddress().getPort();
  }

  private static void health(HttpExchange exchange, CaptureState state) throws IOException {
    String problem = state.problem();
    ObjectNode json = MessageCodec.jsonMapper().createObjectNode();
    json.put("status", problem == null ? "UP" : "DOWN");
    json.put("role", state.leading() ? "leader" : "standby");
    if (state.waitingForNats()) {
      json.put("waiting_for_nats", true); // not a problem of this process: it retries
    }
    if (problem != null) {
      json.put("reason", problem);
    }
    send(exchange, problem == null ? 200 : 503, "application/json", json + "\n");
  }

  private static void metrics(HttpExchange exchange, PrometheusMeterRegistry registry, String token)
      throws IOException {
    if (!BearerToken.allows(exchange.getRequestHeaders().getFirst("Authorization"), token)) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tablecast metrics\"");
      send(
          exchange,
          401,
          "text/plain; charset=utf-8",
          "/metrics requires the bearer token of metrics_token (Authorization: Bearer ...)\n");
      return;
    }
    send(exchange, 200, PROMETHEUS, registry.scrape());
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** Stops listening. */
  @Override
  public void close() {
    http.stop(0);
  }
}
