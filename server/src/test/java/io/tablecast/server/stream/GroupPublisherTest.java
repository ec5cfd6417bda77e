package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.tablecast.server.testing.NatsServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Capture's publisher against a real {@code nats-server -js}: every group stored once and in order
 * whatever NATS does meanwhile, and fenced by another publisher.
 */
class GroupPublisherTest {
  static final int MAX_PAYLOAD = 64 * 1024;

  @Test
  void natsRestartedWhilePublishingLosesNoGroupAndStoresNoneTwice() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        Connection nats =
            Nats.connect(
                new Options.Builder()
                    .server(n.url())
                    .maxReconnects(-1)
                    .reconnectWait(Duration.ofMillis(50))
                    .build())) {
      long last = createStream(nats, "TC_restarted");
      GroupPublisher p = new GroupPublisher(nats, "TC_restarted", last, "run2");
      AtomicInteger stored = new AtomicInteger();
      Thread publishing =
          new Thread(
              () -> {
                try {
                  for (int g = 1; g <= 3_000; g++) {
                    // every 250th group is split into three parts
                    int size = g % 250 == 0 ? 2 * p.partBytes() + 10 : 200;
                    if (!p.publish("batch", new byte[size], 0, null)) {
                      return;
                    }
                    stored.set(g);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      publishing.start();
      while (stored.get() < 500) {
        Thread.sleep(5);
      }
      n.stopGracefully(); // its store is kept whole; the publish in progress gets no answer
      await("the publisher finds out that NATS stores nothing")
          .atMost(Duration.ofSeconds(15))
          .until(p::retrying);
      int storedWhileAway = stored.get();
      Thread.sleep(500);
      assertThat(stored.get()).as("nothing stored while NATS is away").isEqualTo(storedWhileAway);
      n.restart();
      publishing.join(60_000);
      assertThat(publishing.isAlive()).as("publishing ended").isFalse();

      assertThat(stored.get()).isEqualTo(3_000);
      assertThat(groupsInStream(nats, "TC_restarted", "run2")).isEqualTo(range(1, 3_000));
      assertThat(p.lastSequence()).isEqualTo(3_000 + 12 * 2);
      assertThat(p.retrying()).isFalse();
    }
  }

  @Test
  void aPublisherIsFencedByAnotherOneThatAppended() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        Connection nats = Nats.connect(n.url())) {
      long last = createStream(nats, "TC_fenced");
      GroupPublisher first = new GroupPublisher(nats, "TC_fenced", last, "first");
      for (int g = 1; g <= 10; g++) {
        assertThat(first.publish("batch", new byte[10], 0, null)).isTrue();
      }
      GroupPublisher second = new GroupPublisher(nats, "TC_fenced", first.lastSequence(), "second");
      assertThat(second.publish("batch", new byte[10], 0, null)).isTrue();
      assertThat(second.lastSequence()).isEqualTo(first.lastSequence() + 1);

      assertThatThrownBy(() -> first.publish("batch", new byte[10], 0, null))
          .isInstanceOf(GroupPublisher.FencedException.class)
          .hasMessageContaining("another publisher appended to stream TC_fenced")
          .hasMessageContaining("only one capture may publish to a stream");
      assertThat(groupsInStream(nats, "TC_fenced", "first"))
          .as("nothing of the fenced publisher after the other's message")
          .isEqualTo(range(1, 10));
      assertThat(
              nats.jetStreamManagement().getStreamInfo("TC_fenced").getStreamState().getMsgCount())
          .isEqualTo(11);
    }
  }

  private static long createStream(Connection nats, String stream) throws Exception {
    JetStreamManagement jsm = nats.jetStreamManagement();
    return jsm.addStream(
            StreamConfiguration.builder()
                .name(stream)
                .subjects(NatsStreams.subject(stream))
                .storageType(StorageType.File)
                .build())
        .getStreamState()
        .getLastSequence();
  }

  /**
   * The groups of {@code runId} in the stream, in stream order, each listed once all its parts are
   * there in order; fails on a part stored twice or out of place.
   */
  private static List<Integer> groupsInStream(Connection nats, String stream, String runId)
      throws Exception {
    JetStreamManagement jsm = nats.jetStreamManagement();
    long lastSeq = jsm.getStreamInfo(stream).getStreamState().getLastSequence();
    List<Integer> groups = new ArrayList<>();
    String open = null;
    int nextPart = 1;
    for (long seq = 1; seq <= lastSeq; seq++) {
      MessageInfo m = jsm.getMessage(stream, seq);
      String id = m.getHeaders().getFirst(StreamHeaders.GROUP);
      if (!id.startsWith(runId + "-")) {
        continue;
      }
      StreamHeaders.Part part = StreamHeaders.Part.of(m.getHeaders());
      if (part.number() == 1) {
        assertThat(open).as("group %s began before %s ended", id, open).isNull();
        open = id;
        nextPart = 1;
      }
      assertThat(id).as("part of another group at %d", seq).isEqualTo(open);
      assertThat(part.number()).as("part of %s at %d", id, seq).isEqualTo(nextPart);
      nextPart++;
      if (part.last()) {
        groups.add(Integer.parseInt(id.substring(runId.length() + 1)));
        open = null;
      }
    }
    return groups;
  }

  private static List<Integer> range(int from, int to) {
    List<Integer> r = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      r.add(i);
    }
    return r;
  }
}
