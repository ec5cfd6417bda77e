package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A table the source cannot follow (a changed row it could not read) is stale until repaired: its
 * sessions are told when it turns stale and when it follows its table again, a session that
 * subscribes meanwhile hears it right after its snapshot, and sessions of other tables hear
 * nothing.
 */
class StaleTablesTest {

  private static final TableSchema A = table("a");
  private static final TableSchema B = table("b");
  private HubHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static CommittedBatch staleness(String table, String cause, String reason) {
    return new CommittedBatch(
        List.of(), 0, List.of(), List.of(new CommittedBatch.Staleness(table, cause, reason)));
  }

  private static Message nextNotHeartbeat(HubHarness.Session s) throws InterruptedException {
    return s.client().nextNonHeartbeat();
  }

  @Test
  void sessionsHearWhenATableTurnsStaleAndWhenItFollowsItsTableAgain() throws Exception {
    h = new HubHarness(Duration.ofHours(1), 1000, A, B);
    h.load(2, A, B);
    HubHarness.Session onA = h.connect("on-a");
    HubHarness.Session onB = h.connect("on-b");
    h.hub.subscribe(onA.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    h.hub.subscribe(onB.subscriber(), Message.Subscribe.fresh(List.of("public.b")));
    for (HubHarness.Session s : List.of(onA, onB)) {
      while (!(nextNotHeartbeat(s) instanceof Message.SnapshotEnd)) {
        // the snapshot
      }
    }

    h.hub.publish(
        staleness("public.a", "row [1]", "a row of public.a with key [1] cannot be read"));
    h.hub.publish(
        staleness("public.a", "row [2]", "a row of public.a with key [2] cannot be read"));
    assertThat(nextNotHeartbeat(onA))
        .isEqualTo(
            new Message.TableStatus(
                "public.a", true, "a row of public.a with key [1] cannot be read"));
    assertThat(h.hub.staleTables()).containsOnlyKeys("public.a");

    HubHarness.Session late = h.connect("late");
    h.hub.subscribe(late.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    Message m;
    while (!((m = nextNotHeartbeat(late)) instanceof Message.SnapshotEnd)) {
      assertThat(m).isNotInstanceOf(Message.TableStatus.class);
    }
    assertThat(nextNotHeartbeat(late))
        .as("right after its snapshot, before any batch")
        .isEqualTo(
            new Message.TableStatus(
                "public.a", true, "a row of public.a with key [1] cannot be read (and 1 more)"));

    h.hub.publish(
        staleness("public.a", "row [1]", null)); // one cause gone: still stale, nothing said
    h.hub.publish(new CommittedBatch(List.of(insert("public.a", 3, "c")), 1));
    assertThat(nextNotHeartbeat(onA)).isInstanceOf(Message.ChangeBatch.class);
    h.hub.publish(staleness("public.a", "row [2]", null));
    assertThat(nextNotHeartbeat(onA)).isEqualTo(new Message.TableStatus("public.a", false, null));
    assertThat(h.hub.staleTables()).isEmpty();
    assertThat(onB.client().drain()).noneMatch(x -> x instanceof Message.TableStatus);
  }

  /**
   * A cause said again in other words (every table said stale as unanswered, then with the error
   * its reads fail on) is told when it changes the reason sessions have; said again in the same
   * words, or another cause than the one sessions hear reworded, it is not. Before, the words were
   * kept but never told: the mirrors kept the first ones.
   */
  @Test
  void aCauseSaidAgainInOtherWordsIsToldWhenItChangesTheReason() throws Exception {
    h = new HubHarness(Duration.ofHours(1), 1000, A);
    h.load(2, A);
    HubHarness.Session onA = h.connect("on-a");
    h.hub.subscribe(onA.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    while (!(nextNotHeartbeat(onA) instanceof Message.SnapshotEnd)) {
      // the snapshot
    }

    h.hub.publish(staleness("public.a", "database", "the read has not returned"));
    assertThat(nextNotHeartbeat(onA))
        .isEqualTo(new Message.TableStatus("public.a", true, "the read has not returned"));
    h.hub.publish(staleness("public.a", "database", "the read has not returned"));
    h.hub.publish(staleness("public.a", "row [1]", "a row with key [1] cannot be read"));
    h.hub.publish(staleness("public.a", "row [1]", "a row with key [1] is too large"));
    h.hub.publish(staleness("public.a", "database", "Access denied"));
    assertThat(nextNotHeartbeat(onA))
        .as("only the words sessions hear, changed")
        .isEqualTo(new Message.TableStatus("public.a", true, "Access denied (and 1 more)"));
    assertThat(h.hub.staleTables()).containsEntry("public.a", "Access denied (and 1 more)");
  }
}
