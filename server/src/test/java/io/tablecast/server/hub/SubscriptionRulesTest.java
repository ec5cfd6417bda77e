package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.testing.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a client may ask of the hub in subscribes, and what it is refused. */
class SubscriptionRulesTest {

  private static final TableSchema A = table("a");
  private static final TableSchema B = table("b");
  private static final TableSchema C = table("c");
  private static final Duration NO_HEARTBEAT = Duration.ofHours(1);

  private HubHarness h;

  private static HubSettings maxSubscriptions(int max) {
    return TestHubSettings.withMaxSubscriptions(
        TestHubSettings.of(NO_HEARTBEAT, 100, 1L << 30, 64L << 20), max);
  }

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static void skipSnapshot(TestClient client) throws InterruptedException {
    while (!(client.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
      // skip the rows
    }
  }

  private static void awaitClosed(TestClient client) {
    await().atMost(Duration.ofSeconds(5)).until(() -> !client.channel.isActive());
  }

  @Test
  void secondSubscribeToASubscribedTableIsRefusedWithoutANewSnapshot() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A, B);
    h.load(3, A, B);
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    skipSnapshot(s.client());

    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a", "public.b")));
    Message.Error e = s.client().next(Message.Error.class);
    assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    assertThat(e.table()).as("concerns only that table: not fatal").isEqualTo("public.a");
    assertThat(e.message()).contains("public.a").contains("already subscribed");
    Message.SnapshotBegin begin = s.client().next(Message.SnapshotBegin.class);
    assertThat(begin.table())
        .as("the new table is served, the subscribed one is not snapshotted again")
        .isEqualTo("public.b");
    skipSnapshot(s.client());
    assertThat(s.client().channel.isActive()).isTrue();
  }

  @Test
  void repeatedSubscribesDoNotCountTowardsTheLimitAndTheLimitIsEnforced() throws Exception {
    h = new HubHarness(maxSubscriptions(2), A, B, C);
    h.load(1, A, B, C);
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    skipSnapshot(s.client());
    for (int i = 0; i < 3; i++) {
      h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
      assertThat(s.client().next(Message.Error.class).code())
          .isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    }
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.b")));
    skipSnapshot(s.client());
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.c")));
    Message.Error e = s.client().next(Message.Error.class);
    assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
    assertThat(e.table()).as("fatal").isNull();
    assertThat(e.message()).contains("max_subscriptions_per_connection").contains("3 tables");
    awaitClosed(s.client());
  }

  @Test
  void subscribeListingMoreNamesThanTheLimitIsRefusedBeforeAnyNameIsLookedAt() throws Exception {
    h = new HubHarness(maxSubscriptions(3), A);
    h.load(1, A);
    HubHarness.Session s = h.connect("c");
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      names.add("public.nope" + i);
    }
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(names));
    Message.Error e = s.client().next(Message.Error.class);
    assertThat(e.code())
        .as("one fatal error, not one UNKNOWN_TABLE per name")
        .isEqualTo(ErrorCode.LIMIT_EXCEEDED);
    assertThat(e.message()).contains("names 4").contains("max_subscriptions_per_connection (3)");
    awaitClosed(s.client());
  }

  @Test
  void subscribesWaitingForASnapshotAreBounded() throws Exception {
    h = new HubHarness(maxSubscriptions(4), A, B); // no pings while the snapshot waits
    h.load(3, A, B);
    CountDownLatch started = new CountDownLatch(ChangeHub.CATCH_UP_THREADS);
    CountDownLatch release = new CountDownLatch(1);
    try {
      for (int i = 0;
          i < ChangeHub.CATCH_UP_THREADS;
          i++) { // the snapshot pool is busy: A's snapshot waits
        h.hub
            .snapshotExecutor()
            .execute(
                () -> {
                  started.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
      }
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      HubHarness.Session s = h.connect("flooder");
      h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
      for (int i = 0; i < 5; i++) { // 4 names may wait, the fifth is one too many
        h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.b")));
      }
      Message.Error e = s.client().next(Message.Error.class);
      assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(e.message()).contains("waiting").contains("max_subscriptions_per_connection (4)");
      awaitClosed(s.client());
    } finally {
      release.countDown();
    }
  }

  @Test
  void unknownTableErrorListsOnlyTheTablesThePrincipalMayRead() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A, B);
    h.load(1, A, B);
    SessionPolicy onlyA = new SessionPolicy(Set.of("public.a", "public.nope"), null, null, null);
    HubHarness.Session s = h.connect("c", onlyA);
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.nope")));
    Message.Error e = s.client().next(Message.Error.class);
    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(e.table()).isEqualTo("public.nope");
    assertThat(e.message()).contains("public.a").doesNotContain("public.b");
    assertThat(s.client().channel.isActive()).isTrue();
  }
}
