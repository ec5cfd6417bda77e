package io.tablecast.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** {@code GET /health} of a pipeline's server, as a load balancer would ask it. */
final class Health {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private Health() {}

  /**
   * The status code and the body (stripped) of the pipeline's server, e.g. {@code 503
   * {"status":"DOWN","reason":"..."}}.
   */
  static String of(Pipeline p) throws IOException, InterruptedException {
    return at(p.address());
  }

  /** The same of the process listening at {@code address} (host:port). */
  static String at(String address) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://" + address + "/health")).build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body().strip();
  }
}
