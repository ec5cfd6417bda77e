package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.tablecast.server.testing.NatsServerProcess;
import java.nio.charset.StandardCharsets;
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

  /**
   * A renewal NATS stored whose acknowledgement never came back (the call was interrupted, as the
   * leader's start interrupted its renewal thread, or timed out): the lease is still this holder's,
   * at a revision it did not know. Its next renewal was refused ("wrong last sequence") and a
   * healthy leader gave the lease up just after it started, publishing nothing until a standby took
   * over; seen in a CI run of {@code NatsCaptureFailoverTest}.
   */
  @Test
  void aRenewalStoredWhoseAcknowledgementWasLostKeepsTheLease() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection nats = Nats.connect(n.url())) {
      CaptureLease first = CaptureLease.open(nats, "TC_acklost", Duration.ofMinutes(1), 1, "first");
      assertThat(first.tryAcquire()).isTrue();
      KeyValue bucket = nats.keyValue("TC_acklost_LEADER");
      long known = bucket.get(CaptureLease.KEY).getRevision();
      // the holder's own renewal, stored by NATS, its answer lost on the way back
      bucket.update(CaptureLease.KEY, "first".getBytes(StandardCharsets.UTF_8), known);

      assertThat(first.renew()).as("still the holder's lease").isTrue();
      assertThat(first.renew()).isTrue();
      assertThat(first.held()).isTrue();
      assertThat(first.currentHolder()).isEqualTo("first");

      // another holder's value is a loss, as before
      bucket.put(CaptureLease.KEY, "second".getBytes(StandardCharsets.UTF_8));
      assertThat(first.renew()).isFalse();
      assertThat(first.held()).isFalse();
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
