package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.key;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link NearCache} against a scripted server: the table is subscribed without rows, a miss is one
 * {@code fetch} shared by the misses of a batch window, a held row follows the stream, an absence
 * is held until the row is inserted, a failure answer fails the load and the next read asks again,
 * an older server is told in the exception, and an answer older than a batch the cache applied is
 * never installed (the interleaving a load racing an update can produce is forced here).
 */
class NearCacheTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  FakeServer server;
  TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private FakeServer.Conn connect(NearCacheOptions options, int version) throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .clientName("near-test")
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
    near = client.nearCache(T, options);
    return welcomed(version);
  }

  /** The client's next connection, welcomed at position 10 in {@code version}. */
  private FakeServer.Conn welcomed(int version) throws InterruptedException {
    FakeServer.Conn c = server.accept();
    c.expect(Message.Hello.class);
    return c.send(new Message.Welcome(version, "fake", FakeServer.EPOCH, 10, 10_000));
  }

  NearCache<Map<String, Object>> near;

  private FakeServer.Conn subscribed(NearCacheOptions options) throws Exception {
    FakeServer.Conn c = connect(options, Message.PROTOCOL_VERSION);
    Message.Subscribe s = c.expect(Message.Subscribe.class);
    assertThat(s.withoutRows()).as("a near cache needs no rows in its snapshot").containsExactly(T);
    c.snapshot(T, List.of("id"), 10);
    return c;
  }

  // --- near cache example start
  record Price(long sku, BigDecimal amount, String currency) {}

  static NearCache<Price> prices(TablecastClient client) {
    return client.nearCache(
        "shop.prices",
        Price.class,
        NearCacheOptions.maximumRows(100_000).expireAfterAccess(Duration.ofMinutes(30)));
  }

  static BigDecimal priceOf(NearCache<Price> prices, long sku) {
    Price p = prices.get(sku); // held: nanoseconds; a miss: one round trip, shared with others
    return p == null ? null : p.amount();
  }

  // --- near cache example end

  @Test
  void theNearCacheExampleOfTheDocsRunsAndIsTheOneTheDocumentShows() throws Exception {
    server = new FakeServer();
    client = TablecastClient.builder().servers(server.address()).build();
    NearCache<Price> prices = prices(client);
    FakeServer.Conn c = welcomed(Message.PROTOCOL_VERSION);
    assertThat(c.expect(Message.Subscribe.class).withoutRows()).containsExactly("shop.prices");
    c.snapshot("shop.prices", List.of("sku"), 10);
    CompletableFuture<BigDecimal> price = CompletableFuture.supplyAsync(() -> priceOf(prices, 42));
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(
        new Message.Fetched(
            f.id(),
            "shop.prices",
            10,
            List.of(row("sku", 42, "amount", "9.90", "currency", "EUR")),
            null));
    assertThat(price.get(10, TimeUnit.SECONDS)).isEqualByComparingTo("9.90");
    DocExamples.assertDocumentShows("\n## Near cache\n", NearCacheTest.class, "near cache");
  }

  @Test
  void aMissIsFetchedThenHeldAndFollowsTheStream() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> first = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    assertThat(f.table()).isEqualTo(T);
    assertThat(f.keys()).containsExactly(key(1));
    c.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    assertThat(first.get(10, TimeUnit.SECONDS)).containsEntry("v", "a");
    assertThat(near.get(1)).containsEntry("v", "a"); // held: no second fetch
    c.send(batch(11, update(T, row("id", 1, "v", "a"), row("id", 1, "v", "b"), 1)));
    await().atMost(WAIT).until(() -> "b".equals(near.getIfPresent(1).get("v")));
    c.send(batch(12, delete(T, row("id", 1, "v", "b"), 1)));
    await().atMost(WAIT).until(() -> near.position() == 12);
    assertThat(near.get(1)).as("deleted: held as absent, not loaded again").isNull();
    assertThat(near.stats().missCount()).isEqualTo(1);
    assertThat(near.stats().loadSuccessCount()).isEqualTo(1);
    assertThat(c.received).as("no other request").isEmpty();
  }

  /**
   * A key part whose plain form the server refuses for its column (a {@code Year}'s text for a
   * number), asked for before the near cache knew the columns, is asked for again in the form rows
   * carry once they are known ({@link KeyForms}); it used to fail with the server's refusal.
   */
  @Test
  void aKeyAskedForBeforeTheColumnsWereKnownIsAskedForAgainInItsColumnsForm() throws Exception {
    FakeServer.Conn c = connect(NearCacheOptions.maximumRows(10), Message.PROTOCOL_VERSION);
    CompletableFuture<Map<String, Object>> row = near.getAsync(java.time.Year.of(2026));
    c.expect(Message.Subscribe.class);
    c.snapshot(
        T,
        List.of(
            new ColumnInfo("year", "year(4)", ColumnKind.INTEGER),
            new ColumnInfo("v", "text", ColumnKind.STRING)),
        List.of("year"),
        10);
    Message.Fetch plain = c.expect(Message.Fetch.class);
    assertThat(plain.keys().get(0).get(0).isTextual()).as("the Year's text").isTrue();
    c.send(new Message.Fetched(plain.id(), T, 10, List.of(), "\"2026\" is no key of " + T));
    Message.Fetch asNumber = c.expect(Message.Fetch.class);
    assertThat(asNumber.keys()).containsExactly(key(2026));
    c.send(new Message.Fetched(asNumber.id(), T, 10, List.of(row("year", 2026, "v", "x")), null));
    assertThat(row.get(10, TimeUnit.SECONDS)).containsEntry("v", "x");
  }

  /** Refused by the server it reconnects to, a near cache says its held rows may be old. */
  @Test
  void aNearCacheRefusedWhenItReconnectsIsStaleUntilAServerServesItAgain() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> first = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    assertThat(first.get(10, TimeUnit.SECONDS)).containsEntry("v", "a");
    c.close();
    FakeServer.Conn refusing = welcomed(Message.PROTOCOL_VERSION);
    refusing.expect(Message.Subscribe.class);
    refusing.send(
        new Message.Error(
            io.tablecast.protocol.ErrorCode.ACCESS_DENIED, "principal app may not read " + T, T));
    await().atMost(WAIT).until(() -> near.staleReason() != null);
    assertThat(near.staleReason())
        .startsWith("server refused subscription to " + T + ": ACCESS_DENIED")
        .endsWith("asks for the table again at each reconnect");
    refusing.close();
    FakeServer.Conn serving = welcomed(Message.PROTOCOL_VERSION);
    serving.expect(Message.Subscribe.class);
    serving.snapshot(T, List.of("id"), 12);
    await().atMost(WAIT).until(() -> near.staleReason() == null);
  }

  @Test
  void missesWithinTheBatchWindowShareOneFetchAndOneKeyIsLoadedOnce() throws Exception {
    FakeServer.Conn c =
        subscribed(NearCacheOptions.maximumRows(10).batchWindow(Duration.ofMillis(200)));
    CompletableFuture<Map<String, Object>> a = near.getAsync(1);
    CompletableFuture<Map<String, Object>> b = near.getAsync(2L);
    CompletableFuture<Map<String, Object>> again = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    assertThat(f.keys()).containsExactly(key(1), key(2));
    c.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", 2, "v", "two")), null));
    assertThat(a.get(10, TimeUnit.SECONDS)).as("no row 1").isNull();
    assertThat(again.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(b.get(10, TimeUnit.SECONDS)).containsEntry("v", "two");
    Thread.sleep(300);
    assertThat(c.received).as("one request for three misses").isEmpty();
  }

  @Test
  void aWholeMirrorCreatedWhileASnapshotWithoutRowsComesGetsItsRows() throws Exception {
    FakeServer.Conn c = connect(NearCacheOptions.maximumRows(10), Message.PROTOCOL_VERSION);
    assertThat(c.expect(Message.Subscribe.class).withoutRows()).containsExactly(T);
    TableMirror<Map<String, Object>> whole = client.mirror(T);
    Thread.sleep(100); // the mirror is attached before the snapshot comes
    c.snapshot(T, List.of("id"), 10);
    FakeServer.Conn again = welcomed(Message.PROTOCOL_VERSION);
    Message.Subscribe s = again.expect(Message.Subscribe.class);
    assertThat(s.tables()).containsExactly(T);
    assertThat(s.withoutRows()).as("a whole mirror needs the rows").isNull();
    again.snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"), row("id", 2, "v", "b"));
    assertThat(whole.awaitReady(WAIT)).isTrue();
    assertThat(whole.size()).isEqualTo(2);
  }

  @Test
  void missesWhileARequestIsInFlightGoTogetherWhenItIsAnswered() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> one = near.getAsync(1);
    Message.Fetch f1 = c.expect(Message.Fetch.class);
    assertThat(f1.keys()).as("sent at once: nothing in flight").containsExactly(key(1));
    CompletableFuture<Map<String, Object>> two = near.getAsync(2);
    CompletableFuture<Map<String, Object>> three = near.getAsync(3);
    Thread.sleep(100);
    assertThat(c.received).as("waiting for the request in flight").isEmpty();
    c.send(new Message.Fetched(f1.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    Message.Fetch f2 = c.expect(Message.Fetch.class);
    assertThat(f2.keys()).containsExactly(key(2), key(3));
    c.send(new Message.Fetched(f2.id(), T, 10, List.of(row("id", 3, "v", "c")), null));
    assertThat(one.get(10, TimeUnit.SECONDS)).containsEntry("v", "a");
    assertThat(two.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(three.get(10, TimeUnit.SECONDS)).containsEntry("v", "c");
  }

  /**
   * A {@code getAll} whose keys go in two requests (the first at once, the second once the first is
   * answered): each key is held from its own answer on, so a batch between the two answers is
   * applied to the key already answered, not skipped as if its load were still in flight (which
   * held the deleted row until it was evicted: seen in {@code NearCachesUnderLoadTest}).
   */
  @Test
  void aKeyOfAGetAllFollowsTheStreamFromItsOwnAnswerNotTheLastOne() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<Object, Map<String, Object>>> both =
        CompletableFuture.supplyAsync(() -> near.getAll(List.of(1L, 2L)));
    Message.Fetch f1 = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f1.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    Message.Fetch f2 = c.expect(Message.Fetch.class);
    assertThat(List.of(f1.keys(), f2.keys())).containsExactly(List.of(key(1)), List.of(key(2)));
    c.send(batch(11, delete(T, row("id", 1, "v", "a"), 1)));
    c.send(new Message.Fetched(f2.id(), T, 11, List.of(row("id", 2, "v", "b")), null));
    assertThat(both.get(10, TimeUnit.SECONDS)).containsKey(2L);
    await().atMost(WAIT).until(() -> near.position() == 11);
    assertThat(near.getIfPresent(1)).as("deleted after its answer").isNull();
    assertThat(near.get(1)).isNull();
    assertThat(near.get(2)).containsEntry("v", "b");
  }

  @Test
  void aCompositeKeyIsAskedForAsTheArrayOfItsParts() throws Exception {
    FakeServer.Conn c = connect(NearCacheOptions.maximumRows(10), Message.PROTOCOL_VERSION);
    c.expect(Message.Subscribe.class);
    c.snapshot(T, List.of("region", "id"), 10);
    CompletableFuture<Map<String, Object>> load =
        CompletableFuture.supplyAsync(() -> near.get("eu", 7));
    Message.Fetch f = c.expect(Message.Fetch.class);
    assertThat(f.keys()).containsExactly(key("eu", 7));
    c.send(
        new Message.Fetched(f.id(), T, 10, List.of(row("region", "eu", "id", 7, "v", "x")), null));
    assertThat(load.get(10, TimeUnit.SECONDS)).containsEntry("v", "x");
    assertThat(near.get(List.of("eu", 7L))).as("held under the normalized key").isNotNull();
  }

  @Test
  void aKeyNoRowCanHaveIsRefusedOnceTheServerFoundNothing() throws Exception {
    FakeServer.Conn c = connect(NearCacheOptions.maximumRows(10), Message.PROTOCOL_VERSION);
    c.expect(Message.Subscribe.class);
    c.send(
        new Message.SnapshotBegin(
            T,
            List.of(
                new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
                new ColumnInfo("v", "text", ColumnKind.STRING)),
            List.of("id"),
            10,
            0),
        new Message.SnapshotEnd(T, 10));
    CompletableFuture<Map<String, Object>> miss =
        CompletableFuture.supplyAsync(() -> near.get("7"));
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f.id(), T, 10, List.of(), null));
    assertThatThrownBy(() -> miss.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "get(\"7\") on shop.items: key column id is INTEGER (bigint), so text never finds"
                + " a row; give a number (get(42L))");
  }

  @Test
  void anAbsenceIsHeldUntilTheStreamInsertsTheRow() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> miss = near.getAsync(7);
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f.id(), T, 10, List.of(), null));
    assertThat(miss.get(10, TimeUnit.SECONDS)).isNull();
    c.send(batch(11, insert(T, row("id", 7, "v", "new"), 7)));
    await().atMost(WAIT).until(() -> near.getIfPresent(7) != null);
    assertThat(near.get(7)).containsEntry("v", "new");
    assertThat(near.stats().loadCount()).isEqualTo(1);
  }

  @Test
  void anAnswerOlderThanABatchAppliedIsNotInstalledButAskedForAgain() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> load = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    // the load races an update: the update reaches the client first, then an answer read before
    // it (position 10), as a server reading its image elsewhere than its stream would send
    c.send(batch(11, update(T, row("id", 1, "v", "old"), row("id", 1, "v", "new"), 1)));
    c.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", 1, "v", "old")), null));
    Message.Fetch again = c.expect(Message.Fetch.class);
    assertThat(again.keys()).containsExactly(key(1));
    assertThat(load).as("the older answer is not installed").isNotDone();
    c.send(new Message.Fetched(again.id(), T, 11, List.of(row("id", 1, "v", "new")), null));
    assertThat(load.get(10, TimeUnit.SECONDS)).containsEntry("v", "new");
    assertThat(near.get(1)).containsEntry("v", "new");
  }

  @Test
  void aBatchDuringALoadIsCoveredByTheAnswerThatFollowsIt() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> load = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(batch(11, update(T, row("id", 1, "v", "a"), row("id", 1, "v", "b"), 1)));
    c.send(new Message.Fetched(f.id(), T, 11, List.of(row("id", 1, "v", "b")), null));
    c.send(batch(12, update(T, row("id", 1, "v", "b"), row("id", 1, "v", "c"), 1)));
    assertThat(load.get(10, TimeUnit.SECONDS)).containsEntry("v", "b");
    await().atMost(WAIT).until(() -> "c".equals(near.getIfPresent(1).get("v")));
  }

  @Test
  void aFailureAnswerFailsTheLoadAndTheNextReadAsksAgain() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> load = near.getAsync(1);
    Message.Fetch f = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f.id(), T, -1, List.of(), "a fetch may ask for at most 1000 keys"));
    assertThatThrownBy(() -> load.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(TablecastException.class)
        .hasMessageContaining("cannot answer fetch: a fetch may ask for at most 1000 keys");
    CompletableFuture<Map<String, Object>> retry = near.getAsync(1);
    Message.Fetch f2 = c.expect(Message.Fetch.class);
    c.send(new Message.Fetched(f2.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    assertThat(retry.get(10, TimeUnit.SECONDS)).containsEntry("v", "a");
  }

  @Test
  void aLoadLostWithTheConnectionIsAskedAgainOnTheNext() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(10));
    CompletableFuture<Map<String, Object>> load = near.getAsync(1);
    c.expect(Message.Fetch.class);
    c.close();
    FakeServer.Conn c2 = welcomed(Message.PROTOCOL_VERSION);
    Message.Subscribe resume = c2.expect(Message.Subscribe.class);
    assertThat(resume.resumePosition()).isEqualTo(10);
    c2.send(new Message.Resumed(List.of(T), List.of(), 10));
    Message.Fetch f = c2.expect(Message.Fetch.class);
    c2.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", 1, "v", "a")), null));
    assertThat(load.get(10, TimeUnit.SECONDS)).containsEntry("v", "a");
  }

  @Test
  void aServerWithoutFetchIsNamedInTheFailure() throws Exception {
    connect(NearCacheOptions.maximumRows(10), 4).expect(Message.Subscribe.class);
    assertThatThrownBy(() -> near.get(1))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("speaks protocol version 4, which has no fetch (version 5)");
  }

  @Test
  void aTimedOutLoadSaysSoAndNamesTheServer() throws Exception {
    FakeServer.Conn c =
        subscribed(NearCacheOptions.maximumRows(10).loadTimeout(Duration.ofMillis(300)));
    assertThatThrownBy(() -> near.get(1))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("no row of " + T + " for 1 within PT0.3S (connected to ");
    assertThat(c.expect(Message.Fetch.class).keys()).containsExactly(key(1));
  }

  @Test
  void theBoundEvictsAndCountsEvictions() throws Exception {
    FakeServer.Conn c = subscribed(NearCacheOptions.maximumRows(5));
    for (int id = 1; id <= 20; id++) {
      CompletableFuture<Map<String, Object>> load = near.getAsync(id);
      Message.Fetch f = c.expect(Message.Fetch.class);
      c.send(new Message.Fetched(f.id(), T, 10, List.of(row("id", id, "v", "x")), null));
      load.get(10, TimeUnit.SECONDS);
    }
    await().atMost(WAIT).until(() -> near.estimatedSize() <= 5);
    assertThat(near.stats().evictionCount()).isGreaterThanOrEqualTo(15);
  }

  @Test
  void optionsAreCheckedAndOneNearCachePerTableAndType() throws Exception {
    subscribed(NearCacheOptions.maximumRows(10));
    assertThat(client.nearCache(T, NearCacheOptions.maximumRows(10))).isSameAs(near);
    assertThatThrownBy(() -> client.nearCache(T, NearCacheOptions.maximumRows(11)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exists already with");
    assertThatThrownBy(() -> NearCacheOptions.maximumRows(0))
        .hasMessageContaining("maximumRows must be at least 1");
    assertThatThrownBy(() -> NearCacheOptions.maximumBytes(1).maxKeysPerFetch(1001))
        .hasMessageContaining("maxKeysPerFetch must be 1 to 1000");
  }
}
