package io.tablecast.client;

import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TablecastClientMetrics} against the scripted server: each meter moves when what it counts
 * happens, and only then.
 */
class ClientMetricsTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  final MeterRegistry registry = new SimpleMeterRegistry();
  FakeServer server;
  TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private TablecastClient connect() {
    return TablecastClient.builder()
        .servers(server.address())
        .clientName("metrics-test")
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  private double value(String name, String... tags) {
    Meter m = registry.find(name).tags(tags).meter();
    assertThat(m).as("meter %s %s", name, List.of(tags)).isNotNull();
    return m.measure().iterator().next().getValue();
  }

  private double table(String name) {
    return value(name, "client", "metrics-test", "table", T);
  }

  @Test
  void rowsChangesLagAndConnectionMoveWithTheStream() throws Exception {
    server = new FakeServer();
    client = connect();
    new TablecastClientMetrics(client).bindTo(registry);
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(value("tablecast.client.connected", "client", "metrics-test")).isZero();
    assertThat(table("tablecast.client.mirror.rows")).isZero();
    assertThat(table("tablecast.client.mirror.ready")).isZero();

    FakeServer.Conn conn = server.handshake(5);
    conn.expect(Message.Subscribe.class);
    await().atMost(WAIT).until(() -> value("tablecast.client.connected") == 1);
    conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"), row("id", 2, "v", "b"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(table("tablecast.client.mirror.rows")).isEqualTo(2);
    assertThat(table("tablecast.client.mirror.ready")).isEqualTo(1);
    assertThat(table("tablecast.client.mirror.position")).isEqualTo(5);
    assertThat(table("tablecast.client.changes")).isZero();
    assertThat(table("tablecast.client.resnapshots")).as("the first snapshot").isZero();

    long captured = System.currentTimeMillis() - 3_000;
    conn.send(
        new Message.ChangeBatch(
            6,
            captured,
            List.of(insert(T, row("id", 3, "v", "c"), 3), insert(T, row("id", 4, "v", "d"), 4))));
    await().atMost(WAIT).until(() -> m.position() == 6);
    assertThat(table("tablecast.client.mirror.rows")).isEqualTo(4);
    assertThat(table("tablecast.client.changes")).isEqualTo(2);
    assertThat(table("tablecast.client.mirror.position")).isEqualTo(6);
    Timer lag = registry.find("tablecast.client.lag").tags("table", T).timer();
    assertThat(lag.count()).isEqualTo(1);
    assertThat(lag.max(TimeUnit.MILLISECONDS)).isBetween(3_000.0, 60_000.0);
    // the gauge shows the last transaction's lag for a second, then 0: an idle table has none
    double shown = table("tablecast.client.mirror.lag");
    assertThat(shown).isBetween(3.0, 60.0);
    await().atMost(WAIT).until(() -> table("tablecast.client.mirror.lag") == 0);

    // a batch without changes of the table moves no counter and records no lag
    conn.send(new Message.ChangeBatch(7, System.currentTimeMillis() - 9_000, List.of()));
    await().atMost(WAIT).until(() -> m.position() == 7);
    assertThat(lag.count()).isEqualTo(1);
    assertThat(table("tablecast.client.changes")).isEqualTo(2);
    assertThat(table("tablecast.client.mirror.lag")).isZero();

    conn.send(new Message.TableStatus(T, true, "the server's image could not take a change"));
    await().atMost(WAIT).until(() -> table("tablecast.client.mirror.stale") == 1);
  }

  @Test
  void reconnectsResumesAndResnapshotsAreCountedPerClientAndTable() throws Exception {
    server = new FakeServer();
    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    // bound after the first connection: the counters count from the client's start anyway
    new TablecastClientMetrics(client).bindTo(registry);
    assertThat(value("tablecast.client.reconnects")).isZero();

    conn.close(); // the server drops the connection; the client resumes
    FakeServer.Conn again = server.handshake(10);
    again.expect(Message.Subscribe.class);
    again.send(
        new Message.Resumed(
            List.of(T),
            List.of(
                new Message.TableSchemaInfo(
                    T, List.of(new ColumnInfo("id", "int", ColumnKind.INTEGER)), List.of("id"))),
            10));
    await().atMost(WAIT).until(() -> table("tablecast.client.resumes") == 1);
    assertThat(value("tablecast.client.reconnects")).isEqualTo(1);
    assertThat(value("tablecast.client.disconnects")).isEqualTo(1);
    assertThat(value("tablecast.client.connected")).isEqualTo(1);
    assertThat(table("tablecast.client.resnapshots")).isZero();

    again.close(); // a restarted server (another epoch) cannot resume: a new snapshot
    await().atMost(WAIT).until(() -> value("tablecast.client.connected") == 0);
    FakeServer.Conn third = server.handshake("epoch-2", 50, 10_000);
    third.expect(Message.Subscribe.class);
    third.snapshot(T, List.of("id"), 50, row("id", 1, "v", "a"), row("id", 2, "v", "b"));
    await().atMost(WAIT).until(() -> table("tablecast.client.resnapshots") == 1);
    assertThat(value("tablecast.client.reconnects")).isEqualTo(2);
    assertThat(value("tablecast.client.disconnects")).isEqualTo(2);
    assertThat(table("tablecast.client.resumes")).isEqualTo(1);
    assertThat(table("tablecast.client.mirror.rows")).isEqualTo(2);

    third.send(new Message.Error(ErrorCode.SLOW_CONSUMER, "you are slow", null));
    await()
        .atMost(WAIT)
        .until(() -> value("tablecast.client.server.errors", "code", "SLOW_CONSUMER") == 1);
    assertThat(value("tablecast.client.server.errors", "code", "UNKNOWN_TABLE")).isZero();
  }

  @Test
  void aTableMirroredByTwoRowTypesIsCountedOnceAndOneMirroredLaterGetsItsMeters() throws Exception {
    server = new FakeServer();
    client = connect();
    new TablecastClientMetrics(client).bindTo(registry);
    new TablecastClientMetrics(client).bindTo(registry); // twice: still one lag per transaction
    TableMirror<Map<String, Object>> generic = client.mirror(T);
    TableMirror<Item> typed = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(5);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
    assertThat(generic.awaitReady(WAIT)).isTrue();
    assertThat(typed.awaitReady(WAIT)).isTrue();
    conn.send(
        new Message.ChangeBatch(
            6, System.currentTimeMillis(), List.of(insert(T, row("id", 2, "v", "b"), 2))));
    await().atMost(WAIT).until(() -> generic.position() == 6 && typed.position() == 6);
    assertThat(table("tablecast.client.changes")).isEqualTo(1);
    assertThat(registry.find("tablecast.client.lag").timer().count()).isEqualTo(1);
    assertThat(registry.find("tablecast.client.mirror.rows").meters()).hasSize(1);

    client.mirror("shop.later");
    assertThat(value("tablecast.client.mirror.rows", "table", "shop.later")).isZero();
    assertThat(value("tablecast.client.changes", "table", "shop.later")).isZero();
  }

  @Test
  void extraTagsGoOnEveryMeter() throws Exception {
    server = new FakeServer();
    client = connect();
    client.mirror(T);
    new TablecastClientMetrics(client, io.micrometer.core.instrument.Tags.of("region", "eu"))
        .bindTo(registry);
    assertThat(registry.getMeters())
        .isNotEmpty()
        .allSatisfy(
            meter ->
                assertThat(meter.getId().getTag("region"))
                    .as(meter.getId().getName())
                    .isEqualTo("eu"));
  }

  record Item(long id, String v) {}

  @Test
  void aSnapshotTheConnectionsEndCutsShortIsCountedUntilOneCompletes() throws Exception {
    server = new FakeServer();
    client = connect();
    new TablecastClientMetrics(client).bindTo(registry);
    TableMirror<Map<String, Object>> m = client.mirror(T);
    List<ColumnInfo> cols = List.of(new ColumnInfo("id", "int", ColumnKind.INTEGER));
    for (int cut = 1; cut <= 2; cut++) {
      FakeServer.Conn conn = server.handshake(5);
      conn.expect(Message.Subscribe.class);
      conn.send(
          new Message.SnapshotBegin(T, cols, List.of("id"), 5, 3),
          new Message.SnapshotRows(T, List.of(row("id", 1), row("id", 2))));
      await().atMost(WAIT).until(() -> m.snapshotProgress().rowsReceived() == 2);
      assertThat(table("tablecast.client.snapshots.cut")).isEqualTo(cut - 1);
      conn.close(); // as a server closes a client that did not read in time
      int expected = cut;
      await().atMost(WAIT).until(() -> table("tablecast.client.snapshots.cut") == expected);
      assertThat(m.isReady()).isFalse();
    }
    FakeServer.Conn conn = server.handshake(5);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 5, row("id", 1));
    assertThat(m.awaitReady(WAIT)).isTrue();
    conn.close(); // no snapshot in flight: nothing cut short
    await().atMost(WAIT).until(() -> value("tablecast.client.disconnects") == 3);
    assertThat(table("tablecast.client.snapshots.cut")).isEqualTo(2);

    conn = server.handshake("epoch-2", 9, 10_000); // another epoch: a new snapshot begins
    conn.expect(Message.Subscribe.class);
    conn.send(new Message.SnapshotBegin(T, cols, List.of("id"), 9, 3));
    await().atMost(WAIT).until(() -> m.snapshotProgress().rowsExpected() == 3);
    client.close(); // the application closes the client mid-snapshot: nothing is cut short
    await().atMost(WAIT).until(() -> value("tablecast.client.disconnects") == 4);
    assertThat(table("tablecast.client.snapshots.cut")).isEqualTo(2);
  }
}
