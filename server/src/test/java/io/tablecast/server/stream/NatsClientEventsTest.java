package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.Secret;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.NatsServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the NATS client reports reaches the server's log (and the console's recent events), not
 * jnats' own {@code java.util.logging} lines: a real {@code nats-server} refusing a publish.
 */
class NatsClientEventsTest {

  @Test
  void anErrorTheNatsServerSendsIsLoggedAsAWarningNamingTheConnection() throws Exception {
    String auth =
        "authorization { users = [ { user: tc, password: secret,"
            + " permissions: { publish: { deny: [\"forbidden.>\"] } } } ] }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, auth);
        Connection c =
            NatsStreams.connect(
                new NatsSettings(List.of(n.url()), "S", "tc", Secret.of("secret"), null),
                "events-test")) {
      c.publish("forbidden.subject", "x".getBytes(StandardCharsets.UTF_8));
      c.flush(Duration.ofSeconds(5));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  RecentEvents.global().newestFirst().stream()
                      .anyMatch(
                          e ->
                              e.level().equals("WARN")
                                  && e.message().contains("events-test")
                                  && e.message().contains("Permissions Violation")));
    }
  }

  /**
   * The same exception again is not another warning, also from the next attempt's listener (a
   * server waiting for NATS connects anew every few seconds, and warned at each).
   */
  @Test
  void theSameExceptionAgainIsNotAnotherWarning() {
    long before = RecentEvents.global().warnings();
    // another text than any other test's, as the last exception is kept per connection name
    java.io.IOException refused =
        new java.io.IOException("Connection refused (" + System.nanoTime() + ")");
    new NatsClientEvents().exceptionOccurred(null, refused);
    new NatsClientEvents().exceptionOccurred(null, refused);
    NatsClientEvents events = new NatsClientEvents();
    events.exceptionOccurred(null, refused);
    assertThat(RecentEvents.global().warnings() - before).isOne();
    events.exceptionOccurred(null, new java.io.IOException("Broken pipe"));
    assertThat(RecentEvents.global().warnings() - before).isEqualTo(2);
  }

  @Test
  void aTimeoutWithoutAMessageIsSaidInWords() {
    assertThat(NatsClientEvents.describe(null, new java.util.concurrent.TimeoutException()))
        .isEqualTo(
            "no answer in the NATS protocol within 5 s: is it a NATS server's port, and does it"
                + " answer?");
  }
}
