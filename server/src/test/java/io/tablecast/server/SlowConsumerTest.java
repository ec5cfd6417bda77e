package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.WriteBufferSettings;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One client stops reading while several healthy ones follow a steady write load. Whatever the
 * policy, the healthy clients keep receiving every batch (after each round of writes they are at
 * the server's position: their lag does not grow with the stall), what the server holds for the
 * stalled client stays under its configured bound (the hub's own accounting), and the stalled
 * client converges to the table once it reads again. While it is coalesced, the operations console
 * shows it so.
 */
class SlowConsumerTest {

  private static final String PRODUCTS = "public.products";
  private static final int HEALTHY = 3;

  /**
   * Rounds of writes go on until the policy has acted (the socket buffers of the stalled client
   * absorb an unknown few megabytes first), then for {@link #ROUNDS_AFTER} more; at most this many.
   */
  private static final int MAX_ROUNDS = 100;

  private static final int ROUNDS_AFTER = 3;
  private static final int BATCHES_PER_ROUND = 100;

  /** Keys the inserting load cycles through: 4 MB of rows, more than the coalescing bound. */
  private static final int INSERTED_KEYS = 1000;

  /** Per round: 100 batches of 4 KB rows = 400 KB per client. */
  private static final String BIG = "z".repeat(4000);

  private static final long MAX_PENDING = 1 << 20;

  /** The queue may pass the bound by the one batch that found it under the bound. */
  private static final long ONE_BATCH = 8 << 10;

  /** Coalesced bytes allowed per session; 100 keys of 4 KB rows fit, 2000 do not. */
  private static final long COALESCE_MAX_BYTES = 1 << 20;

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 100);

  /** What the table holds (the source's rows after every committed change). */
  private final Map<Long, String> expected = new ConcurrentHashMap<>();

  private final List<MirrorClient> clients = new ArrayList<>();
  private TablecastServer server;

  @AfterEach
  void tearDown() {
    clients.forEach(MirrorClient::close);
    if (server != null) {
      server.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private void start(ServerConfig.Builder config) throws InterruptedException {
    for (long i = 1; i <= 100; i++) {
      expected.put(i, "row" + i);
    }
    server =
        TablecastServers.start(
            config
                .listen("127.0.0.1", 0)
                .set("write_buffer", new WriteBufferSettings(64 << 10, 256 << 10))
                .set("slow_consumer.max_pending_bytes", MAX_PENDING)
                .set("idle_timeout", Duration.ofMinutes(5))
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of(PRODUCTS),
                        false,
                        null,
                        null))
                .build(),
            source);
  }

  private MirrorClient client(String name) {
    MirrorClient c =
        new MirrorClient(
            group, new InetSocketAddress("127.0.0.1", server.port()), name, PRODUCTS, 4096);
    clients.add(c);
    await().atMost(Duration.ofSeconds(10)).until(() -> c.snapshots.get() == 1);
    return c;
  }

  private Optional<ChangeHub.SessionState> state(String client) {
    return server.hub().sessionStates().stream()
        .filter(s -> s.clientName().equals(client))
        .findFirst();
  }

  /** {@code GET /console/api/sessions} of the (open) server, by client name. */
  private Map<String, JsonNode> consoleSessions() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/console/api/sessions"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Map<String, JsonNode> byName = new HashMap<>();
    for (JsonNode session : new ObjectMapper().readTree(r.body()).path("sessions")) {
      byName.put(session.path("clientName").asText(), session);
    }
    return byName;
  }

  /**
   * Commits rounds of writes (one change per batch, from {@code change}) until {@code acted} holds
   * for the stalled client's state (empty once it was dropped), then a few more, checking after
   * each round that every healthy client reached the server's position and what the server holds
   * for the stalled client; returns the largest coalesced key count seen.
   */
  private int writeRounds(
      List<MirrorClient> healthy,
      MirrorClient stalled,
      LongFunction<RowEvent> change,
      Predicate<Optional<ChangeHub.SessionState>> acted) {
    int maxCoalescedKeys = 0;
    long n = 0;
    int after = -1;
    for (int r = 0; after < ROUNDS_AFTER; r++) {
      assertThat(r)
          .as("rounds before the policy acted on the stalled client")
          .isLessThan(MAX_ROUNDS);
      for (int i = 0; i < BATCHES_PER_ROUND; i++) {
        RowEvent e = change.apply(n++);
        expected.put(Rows.after(e).get("id").longValue(), Rows.after(e).get("name").textValue());
        source.commit(e);
      }
      long target = (long) (r + 1) * BATCHES_PER_ROUND;
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> server.position() == target);
      for (MirrorClient h : healthy) {
        await("healthy client " + h + " at position " + target)
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> h.position() == target);
      }
      Optional<ChangeHub.SessionState> s = state(stalled.name);
      if (s.isPresent()) {
        assertThat(s.get().pendingBytes())
            .as("bytes queued for the stalled client, round %d", r)
            .isLessThanOrEqualTo(MAX_PENDING + ONE_BATCH);
        assertThat(s.get().coalescedBytes())
            .as("coalesced bytes of the stalled client, round %d", r)
            .isLessThanOrEqualTo(COALESCE_MAX_BYTES);
        maxCoalescedKeys = Math.max(maxCoalescedKeys, s.get().coalescedKeys());
      }
      if (after >= 0 || acted.test(s)) {
        after++;
      }
    }
    assertThat(stalled.position())
        .as("the stalled client did not follow")
        .isLessThan(server.position());
    for (MirrorClient h : healthy) {
      assertThat(h.errors).isEmpty();
      assertThat(h.connections.get()).isEqualTo(1);
      assertThat(h.rows).isEqualTo(expected);
    }
    return maxCoalescedKeys;
  }

  private List<MirrorClient> healthyClients() {
    List<MirrorClient> healthy = new ArrayList<>();
    for (int i = 0; i < HEALTHY; i++) {
      healthy.add(client("healthy-" + i));
    }
    return healthy;
  }

  private void awaitConverged(MirrorClient c) {
    await("stalled client converges")
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.position() == server.position() && c.rows.equals(expected));
  }

  /** Inserts of {@link #INSERTED_KEYS} new keys, then updates of them, round and round. */
  private static RowEvent upsert(long n) {
    long id = 1000 + n % INSERTED_KEYS;
    return n < INSERTED_KEYS ? insert(PRODUCTS, id, n + BIG) : update(PRODUCTS, id, "?", n + BIG);
  }

  private double slowConsumersClosed() {
    return server.metrics().registry().find("tablecast.slow.consumers").counter().count();
  }

  /** Updates of 100 keys, over and over: coalescing folds them into at most 100 pending rows. */
  @Test
  void coalescingKeepsAStalledClientWithinBoundsUntilItReadsAgain() throws Exception {
    start(
        ServerConfig.builder()
            .set("slow_consumer.coalesce_max_keys", 1000)
            .set("slow_consumer.coalesce_max_bytes", COALESCE_MAX_BYTES));
    List<MirrorClient> healthy = healthyClients();
    MirrorClient stalled = client("stalled");
    stalled.stopReading();

    int maxKeys =
        writeRounds(
            healthy,
            stalled,
            n -> update(PRODUCTS, n % 100 + 1, "?", n + BIG),
            s -> s.isPresent() && s.get().coalescedKeys() > 0);
    assertThat(maxKeys).as("its changes were coalesced").isBetween(1, 100);
    assertThat(state("stalled")).as("it is kept: at most 100 keys are pending").isPresent();
    // the operations console names it and its slow-consumer state; the healthy ones are ok
    await("the console's sessions")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              Map<String, JsonNode> sessions = consoleSessions();
              assertThat(sessions.get("stalled").path("state").asText()).isEqualTo("coalescing");
              assertThat(sessions.get("stalled").path("coalescedKeys").asInt()).isPositive();
              assertThat(sessions.get("healthy-0").path("state").asText()).isEqualTo("ok");
            });
    // its delivery lag: the age of the oldest batch stuck before its socket, growing while it
    // does not read; a client that reads has its batches in its socket within the probe interval
    long lag = consoleSessions().get("stalled").path("deliveryLagMillis").asLong();
    assertThat(lag).isPositive();
    await()
        .untilAsserted(
            () ->
                assertThat(consoleSessions().get("stalled").path("deliveryLagMillis").asLong())
                    .isGreaterThan(lag));
    await()
        .untilAsserted(
            () ->
                assertThat(consoleSessions().get("healthy-0").path("deliveryLagMillis").asLong())
                    .isLessThan(lag));

    stalled.startReading();
    awaitConverged(stalled);
    assertThat(stalled.connections.get()).as("no reconnect was needed").isEqualTo(1);
    assertThat(stalled.errors).isEmpty();
    assertThat(slowConsumersClosed()).isZero();
  }

  /**
   * Changes of 1000 keys: the coalesced rows pass coalesce_max_bytes (not the keys) and the client
   * is dropped.
   */
  @Test
  void pastTheCoalescingBoundTheStalledClientIsDroppedAndResnapshotsWhenItReadsAgain()
      throws Exception {
    start(
        ServerConfig.builder()
            .set("slow_consumer.coalesce_max_keys", 100_000)
            .set("slow_consumer.coalesce_max_bytes", COALESCE_MAX_BYTES)
            .set(
                "resume_buffer",
                new ResumeBufferSettings(
                    10, 1 << 20))); // too short to resume: it takes a new snapshot
    List<MirrorClient> healthy = healthyClients();
    MirrorClient stalled = client("stalled");
    stalled.stopReading();

    writeRounds(healthy, stalled, SlowConsumerTest::upsert, Optional::isEmpty);
    assertThat(state("stalled")).as("dropped past slow_consumer.coalesce_max_bytes").isEmpty();
    assertThat(slowConsumersClosed()).isEqualTo(1);

    stalled.startReading();
    awaitConverged(stalled);
    assertThat(stalled.connections.get()).isEqualTo(2);
    assertThat(stalled.snapshots.get()).isEqualTo(2);
  }

  /** No coalescing: the stalled client is dropped once its queue passes max_pending_bytes. */
  @Test
  void withoutCoalescingTheStalledClientIsDroppedPastMaxPendingBytesAndResumes() throws Exception {
    start(ServerConfig.builder().set("slow_consumer.coalesce_max_keys", 0));
    List<MirrorClient> healthy = healthyClients();
    MirrorClient stalled = client("stalled");
    stalled.stopReading();

    writeRounds(healthy, stalled, SlowConsumerTest::upsert, Optional::isEmpty);
    assertThat(state("stalled")).as("dropped past slow_consumer.max_pending_bytes").isEmpty();
    assertThat(slowConsumersClosed()).isEqualTo(1);

    stalled.startReading();
    awaitConverged(stalled);
    assertThat(stalled.connections.get()).isEqualTo(2);
    assertThat(stalled.resumes.get()).as("the resume buffer still held its position").isEqualTo(1);
    // the error, if it got through before the close, is SLOW_CONSUMER
    assertThat(stalled.errors)
        .allSatisfy(e -> assertThat(e.code()).isEqualTo(ErrorCode.SLOW_CONSUMER));
  }
}
