package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.tablecast.server.testing.NatsServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The lease that says which capture publishes, against a real {@code nats-server -js}. */
class CaptureLeaseTest {
  static final Duration TTL = Duration.ofSeconds(1);

  @Test
  void oneHolderAtATimeAndAHolderThatStopsRenewingLosesTheLeaseToTheStandby() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection nats = Nats.connect(n.url())) {
      CaptureLease first = CaptureLease.open(nats, "TC_lease", TTL, 1, "first");
      CaptureLease second = CaptureLease.open(nats, "TC_lease", TTL, 1, "second");
      assertThat(first.tryAcquire()).isTrue();
      assertThat(second.tryAcquire()).as("held by the first").isFalse();
      for (int i = 0; i < 4; i++) { // renewed past its TTL: still the first's
        Thread.sleep(TTL.toMillis() / 2);
        assertThat(first.renew()).isTrue();
        assertThat(second.tryAcquire()).isFalse();
      }
      assertThat(second.currentHolder()).isEqualTo("first");

      // the first stops renewing (killed): its value expires and the standby takes the lease
      await().atMost(TTL.multipliedBy(5)).until(second::tryAcquire);
      assertThat(second.currentHolder()).isEqualTo("second");
      assertThat(first.renew()).as("the former holder learns it lost the lease").isFalse();
      assertThat(first.held()).isFalse();
      assertThat(first.lostBecause())
          .as("why, for the log")
          .startsWith("NATS refused the renewal ")
          .contains("the value expired (nats.capture_takeover " + TTL.toMillis() + " ms)");
    }
  }

  @Test
  void aReleasedLeaseIsTakenAtOnceAndAReleaseNeverRemovesAnotherHoldersLease() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection nats = Nats.connect(n.url())) {
      CaptureLease first = CaptureLease.open(nats, "TC_release", Duration.ofMinutes(1), 1, "first");
      CaptureLease second =
          CaptureLease.open(nats, "TC_release", Duration.ofMinutes(1), 1, "second");
      assertThat(first.tryAcquire()).isTrue();
      first.release();
      assertThat(second.tryAcquire()).as("no wait for the TTL after a release").isTrue();
      first.release(); // holds nothing: a no-op
      assertThat(second.currentHolder()).isEqualTo("second");
      assertThat(second.renew()).isTrue();
    }
  }
}
