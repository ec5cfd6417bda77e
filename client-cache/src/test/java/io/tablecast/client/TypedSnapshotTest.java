package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A typed mirror maps a snapshot's rows as they arrive ({@link TypedSnapshot}) and installs what it
 * would have installed mapping them at the end: the changes of batches that come during the
 * snapshot land on the rows mapped already (updates, deletes, a new key, inserts, a truncate's
 * deletes), the mirror shows its old rows until the snapshot's end, a re-snapshot reports only the
 * real differences, and a row that cannot be mapped is told at the end, only if it is still the
 * row's image then. Rows in the row form, as a version-3 server sends them.
 */
class TypedSnapshotTest {
  private static final String T = "shop.items";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "text", ColumnKind.STRING),
          new ColumnInfo("qty", "int", ColumnKind.INTEGER));
  private static final RowForm FORM = new RowForm(COLUMNS, List.of("id"));

  /** The application's row type; a row named "unmappable" cannot be one. */
  public record Item(long id, String name, int qty) {
    public Item {
      if ("unmappable".equals(name)) {
        throw new IllegalArgumentException("no item is called unmappable");
      }
    }
  }

  /**
   * An item whose object {@link #held} waits, when compared, until the test opens {@link #gate}: a
   * snapshot being compared with the rows a mirror holds, held at that point.
   */
  public record GatedItem(long id, String name, int qty) {
    static volatile GatedItem held;
    static final CountDownLatch entered = new CountDownLatch(1);
    static final CountDownLatch gate = new CountDownLatch(1);

    @Override
    public boolean equals(Object o) {
      if (this == held) {
        entered.countDown();
        try {
          gate.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return o instanceof GatedItem i && i.id == id && Objects.equals(i.name, name) && i.qty == qty;
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, name, qty);
    }
  }

  private FakeServer server;
  private TablecastClient client;
  private final List<String> heard = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .clientName("typed-snapshot")
            .errorListener(
                new ErrorListener() {
                  @Override
                  public void rowNotMapped(
                      String table, Object key, Class<?> rowType, RuntimeException cause) {
                    heard.add("not mapped " + key);
                  }
                })
            .connectionListener(
                new ConnectionListener() {
                  @Override
                  public void resnapshotted(String table, int inserted, int updated, int deleted) {
                    heard.add(
                        inserted + " inserted, " + updated + " updated, " + deleted + " deleted");
                  }
                })
            .build();
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private static ObjectNode item(long id, String name, int qty) {
    return PackedRow.of(FORM, FORM.encode(FakeServer.row("id", id, "name", name, "qty", qty)));
  }

  private static Message.SnapshotRows rows(ObjectNode... rows) {
    return new Message.SnapshotRows(T, List.of(rows));
  }

  /** Serves {@code m} a first snapshot of {@code rows} at position 10; returns once it is ready. */
  private FakeServer.Conn readyWith(TableMirror<?> m, ObjectNode... rows) throws Exception {
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, rows.length),
        rows(rows),
        new Message.SnapshotEnd(T, 10));
    assertThat(m.awaitReady(WAIT)).isTrue();
    return conn;
  }

  /**
   * Closes {@code conn} as a restarted server would and begins the table's new snapshot at position
   * 50 on the client's next connection, announcing {@code rowCount} rows; returns that connection.
   */
  private FakeServer.Conn restartedServer(FakeServer.Conn conn, int rowCount) throws Exception {
    conn.close();
    FakeServer.Conn again = server.handshake("epoch-2", 50, 10_000);
    again.expect(Message.Subscribe.class);
    again.send(new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 50, rowCount));
    return again;
  }

  /** Waits until the client has read everything sent before: it answers a ping in order. */
  private static void settle(FakeServer.Conn conn, long nonce) throws InterruptedException {
    conn.send(new Message.Ping(nonce));
    assertThat(conn.expect(Message.Pong.class)).isEqualTo(new Message.Pong(nonce));
  }

  @Test
  void changesDuringTheSnapshotLandOnTheRowsMappedAlready() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 6),
        rows(item(1, "one", 1), item(2, "two", 2), item(3, "three", 3), item(4, "four", 4)),
        batch(9, delete(T, item(4, "four", 4), 4)), // older than the snapshot: no effect
        batch(
            11,
            update(T, item(2, "two", 2), item(2, "two v2", 2), 2),
            delete(T, item(3, "three", 3), 3),
            insert(T, item(8, "eight", 8), 8),
            update(T, item(1, "one", 1), item(7, "one as seven", 1), 7)),
        rows(item(5, "five", 5), item(6, "six", 6)),
        batch(
            12,
            update(T, item(5, "five", 5), item(5, "five", 50), 5),
            insert(T, item(9, "nine", 9), 9),
            delete(T, item(9, "nine", 9), 9)));
    settle(conn, 1);
    assertThat(m.isReady()).as("not before the snapshot's end").isFalse();
    assertThat(m.size()).isZero();

    conn.send(new Message.SnapshotEnd(T, 10));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.rows())
        .containsExactlyInAnyOrder(
            new Item(2, "two v2", 2),
            new Item(4, "four", 4),
            new Item(5, "five", 50),
            new Item(6, "six", 6),
            new Item(7, "one as seven", 1),
            new Item(8, "eight", 8));
    assertThat(m.get(1L)).isNull();
    assertThat(heard).isEmpty();
  }

  @Test
  void aTruncateDuringTheSnapshotEmptiesTheRowsMappedAlready() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    List<Message.Change> truncate = new ArrayList<>(); // the server sends a DELETE per row
    for (long id = 1; id <= 3; id++) {
      truncate.add(delete(T, item(id, "n" + id, 0), id));
    }
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 3),
        rows(item(1, "n1", 0), item(2, "n2", 0), item(3, "n3", 0)),
        new Message.ChangeBatch(11, 0, truncate),
        batch(12, insert(T, item(4, "after", 4), 4)),
        new Message.SnapshotEnd(T, 10));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.rows()).containsExactly(new Item(4, "after", 4));
  }

  @Test
  void aResnapshotShowsTheOldRowsUntilItsEndThenOnlyTheRealDifferences() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    List<String> events = new CopyOnWriteArrayList<>();
    m.addListener(e -> events.add(e.op() + " " + e.key()));
    FakeServer.Conn conn =
        readyWith(m, item(1, "one", 1), item(2, "two", 2), item(3, "three", 3), item(5, "five", 5));
    Item one = m.get(1L);

    FakeServer.Conn again = restartedServer(conn, 3); // the table is snapshotted again
    again.send(
        rows(item(1, "one", 1), item(2, "two changed", 2), item(5, "five", 5)),
        batch(
            51,
            insert(T, item(4, "four", 4), 4),
            update(T, item(5, "five", 5), item(5, "five", 55), 5)));
    settle(again, 2);
    assertThat(m.rows())
        .as("the old rows until the snapshot's end")
        .containsExactlyInAnyOrder(
            new Item(1, "one", 1),
            new Item(2, "two", 2),
            new Item(3, "three", 3),
            new Item(5, "five", 5));

    again.send(new Message.SnapshotEnd(T, 50));
    await().atMost(WAIT).until(() -> heard.size() == 1);
    assertThat(heard).containsExactly("1 inserted, 2 updated, 1 deleted");
    assertThat(m.rows())
        .containsExactlyInAnyOrder(
            new Item(1, "one", 1),
            new Item(2, "two changed", 2),
            new Item(4, "four", 4),
            new Item(5, "five", 55));
    assertThat(m.get(1L)).as("an unchanged row keeps its object").isSameAs(one);
    await().atMost(WAIT).until(() -> events.size() == 4);
    assertThat(events).containsExactlyInAnyOrder("UPDATE 2", "DELETE 3", "INSERT 4", "UPDATE 5");
  }

  @Test
  void aListenerAddedWhileAResnapshotIsComparedHearsItsDifferences() throws Exception {
    TableMirror<GatedItem> m = client.mirror(T, GatedItem.class);
    FakeServer.Conn conn = readyWith(m, item(1, "one", 1), item(2, "two", 2), item(3, "three", 3));
    GatedItem.held = m.get(1L);
    FakeServer.Conn again = restartedServer(conn, 2);
    again.send(rows(item(1, "one", 1), item(2, "two changed", 2)), new Message.SnapshotEnd(T, 50));
    assertThat(GatedItem.entered.await(10, TimeUnit.SECONDS)).as("comparing").isTrue();

    // as an application does right after creating a mirror that a file made ready
    List<String> events = new CopyOnWriteArrayList<>();
    m.addListener(e -> events.add(e.op() + " " + e.key()));
    List<Integer> batches = new CopyOnWriteArrayList<>();
    m.addBatchListener(changes -> batches.add(changes.size()));
    GatedItem.gate.countDown();
    await().atMost(WAIT).until(() -> heard.size() == 1);
    assertThat(heard).containsExactly("0 inserted, 1 updated, 1 deleted");
    await().atMost(WAIT).until(() -> events.size() == 2);
    assertThat(events).containsExactlyInAnyOrder("UPDATE 2", "DELETE 3");
    assertThat(batches).containsExactly(2);
  }

  @Test
  void aResnapshotRowThatNoLongerMapsKeepsTheRowsPreviousValue() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    FakeServer.Conn conn = readyWith(m, item(1, "one", 1), item(2, "two", 2));
    Item two = m.get(2L);

    FakeServer.Conn again = restartedServer(conn, 3); // the table is snapshotted again
    again.send(
        rows(item(1, "one", 1), item(2, "unmappable", 2), item(3, "unmappable", 3)),
        new Message.SnapshotEnd(T, 50));
    await().atMost(WAIT).until(() -> heard.contains("not mapped 3"));
    assertThat(heard).contains("not mapped 2");
    assertThat(m.get(2L))
        .as("as after a change that does not map: the previous value")
        .isSameAs(two);
    assertThat(m.rows()).containsExactlyInAnyOrder(new Item(1, "one", 1), new Item(2, "two", 2));
    assertThat(m.staleReason()).contains("2 rows of " + T + " could not be mapped to Item");
  }

  @Test
  void aRowThatCannotBeMappedIsToldAtTheEndOnlyIfItIsStillItsImageThen() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 4),
        rows(
            item(1, "one", 1),
            item(4, "unmappable", 4),
            item(5, "unmappable", 5),
            item(6, "six", 6)),
        batch(
            11,
            update(T, item(5, "unmappable", 5), item(5, "five", 5), 5),
            update(T, item(6, "six", 6), item(6, "unmappable", 6), 6)));
    settle(conn, 3);
    assertThat(heard).as("nothing is told before the snapshot's end").isEmpty();

    conn.send(new Message.SnapshotEnd(T, 10));
    assertThat(m.awaitReady(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> heard.size() >= 2);
    assertThat(heard).containsExactlyInAnyOrder("not mapped 4", "not mapped 6");
    assertThat(m.rows()).containsExactlyInAnyOrder(new Item(1, "one", 1), new Item(5, "five", 5));
    assertThat(m.staleReason()).contains("2 rows of " + T + " could not be mapped to Item");
  }

  @Test
  void aMirrorAddedWhileATypedOnlySnapshotArrivesGetsTheTableFromAFreshSnapshot() throws Exception {
    TableMirror<Item> typed = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.send(new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 2), rows(item(1, "one", 1)));
    await().atMost(WAIT).until(() -> typed.snapshotProgress().rowsReceived() == 1);
    TableMirror<java.util.Map<String, Object>> generic = client.mirror(T); // its bytes are gone
    // attached on the event loop: told the snapshot's progress then, before the rest is sent
    await().atMost(WAIT).until(() -> generic.snapshotProgress().rowsReceived() == 1);
    conn.send(rows(item(2, "two", 2)), new Message.SnapshotEnd(T, 10));

    FakeServer.Conn again = server.handshake(10); // the client reconnects for a fresh snapshot
    again.expect(Message.Subscribe.class);
    again.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 2),
        rows(item(1, "one", 1), item(2, "two", 2)),
        new Message.SnapshotEnd(T, 10));
    assertThat(typed.awaitReady(WAIT)).isTrue();
    assertThat(generic.awaitReady(WAIT)).isTrue();
    assertThat(typed.rows())
        .containsExactlyInAnyOrder(new Item(1, "one", 1), new Item(2, "two", 2));
    assertThat(generic.get(2L)).containsEntry("name", "two");
  }

  @Test
  void aNewPrimaryKeyDuringATypedSnapshotHasTheTableSnapshottedAgain() throws Exception {
    TableMirror<Item> m = client.mirror(T, Item.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 10, 2),
        rows(item(1, "one", 1), item(2, "two", 2)),
        new Message.SchemaChanged(T, 2, COLUMNS, List.of("name")),
        new Message.SnapshotEnd(T, 10));

    FakeServer.Conn again = server.handshake(10);
    again.expect(Message.Subscribe.class);
    RowForm byName = new RowForm(COLUMNS, List.of("name"));
    again.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("name"), 10, 1),
        rows(PackedRow.of(byName, byName.encode(FakeServer.row("id", 1, "name", "one", "qty", 1)))),
        new Message.SnapshotEnd(T, 10));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get("one")).isEqualTo(new Item(1, "one", 1));
    assertThat(m.size()).isEqualTo(1);
  }
}
