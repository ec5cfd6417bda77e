package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** {@code /health} and {@code /metrics} of a capture process, over real HTTP. */
class CaptureEndpointsTest {

  /** A capture whose state the test sets. */
  static final class State implements CaptureState {
    volatile boolean leading;
    volatile int terms;
    volatile long sequence;
    volatile boolean waiting;
    volatile String problem;

    @Override
    public boolean leading() {
      return leading;
    }

    @Override
    public int terms() {
      return terms;
    }

    @Override
    public long lastSequence() {
      return sequence;
    }

    @Override
    public boolean waitingForNats() {
      return waiting;
    }

    @Override
    public String problem() {
      return problem;
    }
  }

  private static HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aStandbyIsHealthyALeaderSaysSoAndAFailedCaptureIsDown() throws Exception {
    State state = new State();
    try (CaptureEndpoints e = CaptureEndpoints.start("127.0.0.1", 0, state, null)) {
      HttpResponse<String> standby = get(e.port(), "/health", null);
      assertThat(standby.statusCode()).isEqualTo(200);
      assertThat(standby.body()).isEqualTo("{\"status\":\"UP\",\"role\":\"standby\"}\n");

      state.leading = true;
      assertThat(get(e.port(), "/health", null).body()).contains("\"role\":\"leader\"");

      state.problem = "the capture's tail stopped on an unexpected error";
      HttpResponse<String> down = get(e.port(), "/health", null);
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body())
          .contains("\"status\":\"DOWN\"")
          .contains("\"reason\":\"the capture's tail stopped on an unexpected error\"");
    }
  }

  @Test
  void metricsSayTheRoleTermsSequenceAndNatsWaitsBehindTheToken() throws Exception {
    State state = new State();
    state.leading = true;
    state.terms = 2;
    state.sequence = 1234;
    state.waiting = true;
    try (CaptureEndpoints e =
        CaptureEndpoints.start("127.0.0.1", 0, state, "a-long-metrics-token")) {
      assertThat(get(e.port(), "/metrics", null).statusCode()).isEqualTo(401);
      assertThat(get(e.port(), "/metrics", "wrong").statusCode()).isEqualTo(401);
      HttpResponse<String> m = get(e.port(), "/metrics", "a-long-metrics-token");
      assertThat(m.statusCode()).isEqualTo(200);
      assertThat(m.body())
          .contains("tablecast_capture_leader 1.0")
          .contains("tablecast_capture_terms_total 2.0")
          .contains("tablecast_capture_stream_sequence 1234.0")
          .contains("tablecast_capture_waiting_for_nats 1.0");
      state.leading = false;
      assertThat(get(e.port(), "/metrics", "a-long-metrics-token").body())
          .contains("tablecast_capture_leader 0.0");
    }
  }
}
