package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sync} on a hub fed from a NATS stream: answered once the hub has taken the stream as far
 * as the sequence the capture leader gave, behind the batches up to there; at once when it already
 * has; with a failure saying why when the leader did not answer.
 */
class SyncFromStreamTest {
  private static final TableSchema A = table("a");
  private static final String T = "public.a";

  private HubHarness h;
  private HubHarness.Session s;
  private CompletableFuture<Long> leader;

  /** The request cannot even be sent (NATS connection closed): a failure, not a lost answer. */
  @Test
  void aRequestThatCannotBeSentFailsTheSyncWithTheReason() throws Exception {
    h.hub.answerSyncsFromStream(
        () -> {
          throw new IllegalStateException("Connection is Closed");
        });
    h.hub.sync(s.subscriber(), 11);
    Message.Synced refused = (Message.Synced) s.client().nextNonHeartbeat();
    assertThat(refused.id()).isEqualTo(11);
    assertThat(refused.failure()).contains("Connection is Closed");
  }

  @BeforeEach
  void subscribed() throws Exception {
    h = new HubHarness(Duration.ofHours(1), 100, A);
    h.load(3, A);
    h.hub.publishAt(10, CommittedBatch.EMPTY); // the images are at this sequence
    h.hub.answerSyncsFromStream(() -> leader);
    s = h.connect("syncing");
    h.hub.subscribe(s.subscriber(), new Message.Subscribe(List.of(T), null, -1));
    while (!(s.client().nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
      // the snapshot's rows
    }
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void answeredOnceTheStreamIsTakenAsFarAsTheLeadersSequenceBehindItsBatches() throws Exception {
    leader = new CompletableFuture<>();
    h.hub.sync(s.subscriber(), 7);
    leader.complete(12L);
    h.hub.publishAt(11, new CommittedBatch(List.of(update(T, 1, "row1", "eleven")), 0));
    assertThat(s.client().nextNonHeartbeat()).isInstanceOf(Message.ChangeBatch.class);
    assertThat(s.client().poll(200, TimeUnit.MILLISECONDS)).as("not yet: 12 is not taken").isNull();

    h.hub.publishAt(12, new CommittedBatch(List.of(update(T, 2, "row2", "twelve")), 0));
    Message.ChangeBatch twelve = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    Message.Synced synced = (Message.Synced) s.client().nextNonHeartbeat();
    assertThat(synced.id()).isEqualTo(7);
    assertThat(synced.failure()).isNull();
    assertThat(synced.position()).isEqualTo(twelve.position());
  }

  @Test
  void aSequenceTheHubHasTakenIsAnsweredAtOnce() throws Exception {
    leader = CompletableFuture.completedFuture(10L);
    h.hub.sync(s.subscriber(), 8);
    Message.Synced synced = (Message.Synced) s.client().nextNonHeartbeat();
    assertThat(synced.id()).isEqualTo(8);
    assertThat(synced.failure()).isNull();
  }

  @Test
  void aLeaderThatDoesNotAnswerFailsTheSyncWithTheReasonAndTheSessionGoesOn() throws Exception {
    leader =
        CompletableFuture.failedFuture(
            new IllegalStateException("no tablecast capture answered on NATS subject x.sync"));
    h.hub.sync(s.subscriber(), 9);
    Message.Synced refused = (Message.Synced) s.client().nextNonHeartbeat();
    assertThat(refused.id()).isEqualTo(9);
    assertThat(refused.failure()).contains("no tablecast capture answered");

    leader = CompletableFuture.completedFuture(10L);
    h.hub.sync(s.subscriber(), 10);
    assertThat(((Message.Synced) s.client().nextNonHeartbeat()).failure()).isNull();
  }
}
