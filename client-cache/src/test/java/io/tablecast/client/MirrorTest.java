package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MirrorTest {
  static final String T = "shop.accounts";
  static final Duration WAIT = Duration.ofSeconds(10);

  record Account(long id, String owner, BigDecimal balance) {}

  FakeServer server;
  TablecastClient client;

  @BeforeEach
  void start() throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .clientName("test")
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  static Message.ChangeBatch b(long p, Message.Change... c) {
    return batch(p, c);
  }

  @Test
  void snapshotThenBatchesKeepTypedMirrorCurrentAndFireEventsOnlyForChanges() throws Exception {
    TableMirror<Account> accounts = client.mirror(T, Account.class);
    List<ChangeEvent<Account>> events = new CopyOnWriteArrayList<>();
    accounts.addListener(events::add);
    FakeServer.Conn conn = server.handshake(10);
    assertThat(conn.expect(Message.Subscribe.class)).isEqualTo(Message.Subscribe.fresh(List.of(T)));
    assertThat(accounts.isReady()).isFalse();

    conn.snapshot(
        T,
        List.of("id"),
        10,
        row("id", 1, "owner", "ann", "balance", "10.50"),
        row("id", 2, "owner", "bob", "balance", "20.00"));
    assertThat(accounts.awaitReady(WAIT)).isTrue();
    assertThat(accounts.size()).isEqualTo(2);
    assertThat(accounts.get(1)).isEqualTo(new Account(1, "ann", new BigDecimal("10.50")));
    assertThat(accounts.primaryKey()).containsExactly("id");
    assertThat(accounts.position()).isEqualTo(10);

    conn.send(
        b(
            11,
            insert(T, row("id", 3, "owner", "cy", "balance", "1"), 3),
            update(
                T,
                row("id", 1, "owner", "ann", "balance", "10.50"),
                row("id", 1, "owner", "ann", "balance", "11.00"),
                1),
            delete(T, row("id", 2, "owner", "bob", "balance", "20.00"), 2)));
    await().atMost(WAIT).until(() -> accounts.position() == 11);
    assertThat(accounts.rows())
        .containsExactlyInAnyOrder(
            new Account(1, "ann", new BigDecimal("11.00")), new Account(3, "cy", BigDecimal.ONE));
    assertThat(accounts.get(2)).isNull();
    assertThat(accounts.copyToMap()).containsOnlyKeys(1L, 3L);

    await().atMost(WAIT).until(() -> events.size() == 3);
    assertThat(events)
        .extracting(ChangeEvent::op)
        .containsExactly(ChangeType.INSERT, ChangeType.UPDATE, ChangeType.DELETE);
    assertThat(events.get(1).oldRow().balance()).isEqualByComparingTo("10.50");
    assertThat(events.get(1).newRow().balance()).isEqualByComparingTo("11.00");
    assertThat(events.get(2).key()).isEqualTo(2L);
    assertThat(events.get(2).newRow()).isNull();

    conn.send(b(12)); // heartbeat
    await().atMost(WAIT).until(() -> accounts.position() == 12);
  }

  @Test
  void genericRowsAreMapsOfJsonValues() throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(client.mirror(T)).isSameAs(m);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(
        T,
        List.of("id"),
        1,
        row(
            "id",
            7,
            "owner",
            "ann",
            "balance",
            "1.20",
            "active",
            true,
            "tags",
            List.of("a", "b"),
            "meta",
            Map.of("x", 1),
            "note",
            null));
    assertThat(m.awaitReady(WAIT)).isTrue();
    Map<String, Object> r = m.get(7L);
    assertThat(r)
        .containsEntry("id", 7)
        .containsEntry("owner", "ann")
        .containsEntry("balance", "1.20")
        .containsEntry("active", true)
        .containsEntry("tags", List.of("a", "b"))
        .containsEntry("meta", Map.of("x", 1))
        .containsEntry("note", null);
  }

  @Test
  void compositeKeysAreGivenInPrimaryKeyOrder() throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror("shop.lines");
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(
        "shop.lines",
        List.of("order_id", "line"),
        1,
        row("order_id", 100, "line", 1, "sku", "x"),
        row("order_id", 100, "line", 2, "sku", "y"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get(100, 2)).containsEntry("sku", "y");
    assertThat(m.get(100L, 1L)).containsEntry("sku", "x");
    assertThat(m.get(List.of(100, 1))).containsEntry("sku", "x");
    assertThat(m.get(2, 100)).isNull();

    conn.send(
        b(
            2,
            update(
                "shop.lines",
                row("order_id", 100, "line", 2, "sku", "y"),
                row("order_id", 100, "line", 2, "sku", "z"),
                100,
                2)));
    await().atMost(WAIT).until(() -> "z".equals(m.get(100, 2).get("sku")));
    assertThat(m.copyToMap()).containsKey(List.of(100L, 2L));
  }

  @Test
  void integerLongAndJsonNumberKeysFindTheSameRow() throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror(T);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(
        T,
        List.of("id"),
        1,
        row("id", 42, "owner", "x", "balance", "0"),
        row(
            "id",
            new java.math.BigInteger("18446744073709551615"),
            "owner",
            "big",
            "balance",
            "0"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get(42))
        .isNotNull()
        .isSameAs(m.get(42L))
        .isSameAs(m.get((short) 42))
        .isSameAs(m.get(java.math.BigInteger.valueOf(42)));
    assertThat(m.get(43)).as("a key of the right kind that no row has").isNull();
    // the text "42" never finds a row of an integer key: told, not answered "no such row"
    assertThatThrownBy(() -> m.get("42"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "get(\"42\") on shop.accounts: key column id is INTEGER (bigint), so text never finds"
                + " a row; give a number (get(42L))");
    assertThat(m.copyToMap()).containsKey(new java.math.BigInteger("18446744073709551615"));
  }

  /**
   * A lookup that cannot find a row whatever the table holds (a part too few or too many, a part of
   * another kind than its column's) is refused with what to give; it used to return null, as for a
   * row not there, and a service looking rows up by an id read from a URL as text found none.
   */
  @Test
  void aKeyNoRowCanHaveIsRefusedWithWhatToGive() throws Exception {
    TableMirror<Map<String, Object>> lines = client.mirror("shop.lines");
    TableMirror<Map<String, Object>> skus = client.mirror("shop.skus");
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(
        "shop.lines", List.of("order_id", "line"), 1, row("order_id", 100, "line", 1, "sku", "x"));
    conn.snapshot("shop.skus", List.of("sku"), 1, row("sku", "42", "name", "answer"));
    assertThat(lines.awaitReady(WAIT) && skus.awaitReady(WAIT)).isTrue();

    assertThat(lines.get(100, 9)).isNull();
    assertThatThrownBy(() -> lines.get(100))
        .hasMessage(
            "get(100) on shop.lines: its primary key has 2 columns (order_id, line): give a value"
                + " for each, in that order, as get(a, b) or get(List.of(a, b))");
    assertThatThrownBy(() -> lines.get(100, 1, 7)).hasMessageStartingWith("get(100, 1, 7) on");
    assertThatThrownBy(() -> lines.get(100, "1"))
        .hasMessageContaining("key column line is INTEGER (bigint), so text never finds a row");

    assertThat(skus.get("43")).isNull();
    assertThat(skus.get("42")).containsEntry("name", "answer");
    assertThatThrownBy(() -> skus.get(43L))
        .hasMessage(
            "get(43) on shop.skus: key column sku is STRING (text), so number never finds a row;"
                + " give its text as docs/TYPES.md shows it (get(\"43\"))");
    assertThatThrownBy(() -> skus.get(List.of("42")))
        .hasMessageContaining("its primary key has one column, sku: give its value alone");
  }

  /**
   * A key part given as a date-time or decimal finds its row whatever its class or scale, in the
   * form its column's rows carry ({@link KeyForms}); one of another kind than its column's is
   * refused with the class to give. Before, each was looked up by its {@code toString()}: an
   * instant at another offset, a decimal of another scale found no row, without a word.
   */
  @Test
  void aKeyGivenAsADateTimeOrADecimalFindsItsRowInItsColumnsForm() throws Exception {
    TableMirror<Map<String, Object>> prices = client.mirror("shop.prices");
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(
        "shop.prices",
        List.of(
            new ColumnInfo("at", "timestamptz", ColumnKind.TIMESTAMP_TZ),
            new ColumnInfo("amount", "numeric(8,2)", ColumnKind.DECIMAL),
            new ColumnInfo("note", "text", ColumnKind.STRING)),
        List.of("at", "amount"),
        1,
        row("at", "2026-01-01T00:00:00Z", "amount", "1.50", "note", "found"));
    assertThat(prices.awaitReady(WAIT)).isTrue();

    java.time.Instant at = java.time.Instant.parse("2026-01-01T00:00:00Z");
    assertThat(prices.get(at.atOffset(java.time.ZoneOffset.ofHours(2)), new BigDecimal("1.5")))
        .containsEntry("note", "found");
    assertThat(prices.get(List.of(at, new BigDecimal("1.500")))).containsEntry("note", "found");
    assertThat(prices.get(at, new BigDecimal("1.51"))).isNull();
    assertThatThrownBy(() -> prices.get(java.time.LocalDateTime.of(2026, 1, 1, 0, 0), "1.50"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "get(2026-01-01T00:00, \"1.50\") on shop.prices: key column at is TIMESTAMP_TZ"
                + " (timestamptz), so a LocalDateTime never finds a row; give an Instant, an"
                + " OffsetDateTime or a ZonedDateTime");
  }

  @Test
  void stringKeysAreKeptAsIs() throws Exception {
    TableMirror<Map<String, Object>> m = client.mirror("shop.skus");
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot("shop.skus", List.of("sku"), 1, row("sku", "A-1", "qty", 3));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get("A-1")).containsEntry("qty", 3);
  }

  @Test
  void unknownTableErrorSurfacesInAwaitReady() throws Exception {
    TableMirror<Account> m = client.mirror("shop.nope", Account.class);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.Error(ErrorCode.UNKNOWN_TABLE, "table shop.nope is not cached", "shop.nope"));
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("shop.nope is not cached")
        .satisfies(
            e -> assertThat(((TablecastException) e).code()).isEqualTo(ServerError.UNKNOWN_TABLE));
  }

  @Test
  void mirrorAddedWhileConnectedSubscribesAndSecondRowTypeIsSeededFromTheFirst() throws Exception {
    TableMirror<Account> typed = client.mirror(T, Account.class);
    assertThat(client.mirror(T, Account.class)).isSameAs(typed);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1, row("id", 1, "owner", "ann", "balance", "1"));
    assertThat(typed.awaitReady(WAIT)).isTrue();

    TableMirror<Map<String, Object>> generic = client.mirror(T);
    assertThat(generic.awaitReady(WAIT)).isTrue();
    assertThat(generic.get(1)).containsEntry("owner", "ann");

    TableMirror<Map<String, Object>> other = client.mirror("shop.other");
    assertThat(conn.expect(Message.Subscribe.class))
        .isEqualTo(Message.Subscribe.fresh(List.of("shop.other")));
    conn.snapshot("shop.other", List.of("id"), 2, row("id", 5));
    assertThat(other.awaitReady(WAIT)).isTrue();
    conn.send(b(3, insert(T, row("id", 2, "owner", "bob", "balance", "2"), 2)));
    await().atMost(WAIT).until(() -> generic.size() == 2 && typed.size() == 2);
  }

  @Test
  void updateThatChangesThePrimaryKeyMovesTheRow() throws Exception {
    TableMirror<Account> m = client.mirror(T, Account.class);
    List<ChangeEvent<Account>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1, row("id", 1, "owner", "ann", "balance", "1"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    conn.send(
        b(
            2,
            update(
                T,
                row("id", 1, "owner", "ann", "balance", "1"),
                row("id", 9, "owner", "ann", "balance", "1"),
                9)));
    await().atMost(WAIT).until(() -> events.size() == 2);
    assertThat(m.get(1)).isNull();
    assertThat(m.get(9)).isNotNull();
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(ChangeType.DELETE, 1L),
            org.assertj.core.groups.Tuple.tuple(ChangeType.INSERT, 9L));
  }

  @Test
  void throwingListenerIsLoggedAndOthersStillRun() throws Exception {
    TableMirror<Account> m = client.mirror(T, Account.class);
    m.addListener(
        e -> {
          throw new IllegalStateException("boom");
        });
    List<Object> seen = new CopyOnWriteArrayList<>();
    Subscription sub = m.addListener(e -> seen.add(e.key()));
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1);
    assertThat(m.awaitReady(WAIT)).isTrue();
    conn.send(
        b(2, insert(T, row("id", 1, "owner", "a", "balance", "1"), 1)),
        b(3, insert(T, row("id", 2, "owner", "b", "balance", "1"), 2)));
    await().atMost(WAIT).until(() -> seen.size() == 2);
    assertThat(m.size()).isEqualTo(2);
    sub.cancel();
    conn.send(b(4, insert(T, row("id", 3, "owner", "c", "balance", "1"), 3)));
    await().atMost(WAIT).until(() -> m.size() == 3);
    assertThat(seen).containsExactly(1L, 2L);
  }

  @Test
  void pingIsAnsweredWithPong() throws Exception {
    client.mirror(T);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.send(new Message.Ping(77));
    assertThat(conn.expect(Message.Pong.class)).isEqualTo(new Message.Pong(77));
  }

  @Test
  void closeMakesMirrorsNotReadyAndIsIdempotent() throws Exception {
    TableMirror<Account> m = client.mirror(T, Account.class);
    FakeServer.Conn conn = server.handshake(1);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 1);
    assertThat(m.awaitReady(WAIT)).isTrue();
    client.close();
    client.close();
    assertThat(m.isReady()).isFalse();
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> client.mirror("shop.x")).isInstanceOf(TablecastException.class);
  }
}
