package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
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
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A mirror keeps its rows and nothing beside them (no image per row): a re-snapshot tells an
 * unchanged generic row by its row-form bytes and an unchanged typed row by {@code equals} (a row
 * type without its own {@code equals} reports every row as updated); what a typed row cannot give
 * (a new primary key's column, a column to seed another mirror with) comes from a fresh snapshot of
 * the table, on a new connection.
 */
class MirrorRowsOnlyTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  /** A record: compared by its values. */
  public record Item(long id, String name) {}

  /** A row type without {@code equals}. */
  public static final class Bean {
    public long id;
    public String name;
  }

  /** A record without the {@code code} column. */
  public record Named(long id, String name) {}

  static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "text", ColumnKind.STRING),
          new ColumnInfo("code", "text", ColumnKind.STRING));

  FakeServer server;
  TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private TablecastClient connect() throws InterruptedException {
    server = new FakeServer();
    return TablecastClient.builder()
        .servers(server.address())
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  /** A snapshot whose rows travel in the row form of {@link #COLUMNS}, as protocol version 3's. */
  private static void packedSnapshot(FakeServer.Conn conn, long position, ObjectNode... rows) {
    RowForm form = new RowForm(COLUMNS, List.of("id"));
    List<ObjectNode> packed = new ArrayList<>();
    for (ObjectNode r : rows) {
      packed.add(PackedRow.of(form, form.encode(r)));
    }
    conn.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("id"), position, rows.length),
        new Message.SnapshotRows(T, packed),
        new Message.SnapshotEnd(T, position));
  }

  private static ObjectNode item(long id, String name) {
    return row("id", id, "name", name, "code", "c" + id);
  }

  /** Connects, snapshots {@code first}, drops the connection and snapshots {@code second}. */
  private <V> List<ChangeEvent<V>> resnapshot(
      TableMirror<V> m, ObjectNode[] first, ObjectNode[] second) throws Exception {
    List<ChangeEvent<V>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    packedSnapshot(conn, 10, first);
    assertThat(m.awaitReady(WAIT)).isTrue();
    conn.close();
    FakeServer.Conn again = server.handshake("epoch-2", 50, 10_000);
    again.expect(Message.Subscribe.class);
    packedSnapshot(again, 50, second);
    await().atMost(WAIT).until(() -> m.position() == 50);
    return events;
  }

  @Test
  void aGenericResnapshotTellsUnchangedRowsByTheirBytes() throws Exception {
    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    packedSnapshot(conn, 10, item(1, "same"), item(2, "old"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get(1)).isInstanceOf(RowView.class);
    Map<String, Object> unchanged = m.get(1);
    List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    conn.close();
    FakeServer.Conn again = server.handshake("epoch-2", 50, 10_000);
    again.expect(Message.Subscribe.class);
    packedSnapshot(again, 50, item(1, "same"), item(2, "new"));
    await().atMost(WAIT).until(() -> events.size() == 1);
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactly(tuple(ChangeType.UPDATE, 2L));
    assertThat(m.get(1)).isSameAs(unchanged);
    assertThat(m.get(2)).containsEntry("name", "new");
  }

  @Test
  void aTypedResnapshotTellsUnchangedRecordsByEquals() throws Exception {
    client = connect();
    TableMirror<Item> m = client.mirror(T, Item.class);
    List<ChangeEvent<Item>> events =
        resnapshot(
            m,
            new ObjectNode[] {item(1, "same"), item(2, "old"), item(3, "gone")},
            new ObjectNode[] {item(1, "same"), item(2, "new"), item(4, "added")});
    await().atMost(WAIT).until(() -> events.size() == 3);
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactlyInAnyOrder(
            tuple(ChangeType.UPDATE, 2L),
            tuple(ChangeType.DELETE, 3L),
            tuple(ChangeType.INSERT, 4L));
    assertThat(m.get(2)).isEqualTo(new Item(2, "new"));
  }

  @Test
  void aTypedResnapshotOfARowTypeWithoutEqualsReportsEveryRowUpdated() throws Exception {
    client = connect();
    TableMirror<Bean> m = client.mirror(T, Bean.class);
    List<ChangeEvent<Bean>> events =
        resnapshot(
            m,
            new ObjectNode[] {item(1, "same"), item(2, "old")},
            new ObjectNode[] {item(1, "same"), item(2, "new")});
    await().atMost(WAIT).until(() -> events.size() == 2);
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactlyInAnyOrder(tuple(ChangeType.UPDATE, 1L), tuple(ChangeType.UPDATE, 2L));
    assertThat(m.get(2).name).isEqualTo("new");
  }

  @Test
  void aTypedMirrorThatCannotReadANewPrimaryKeyGetsAFreshSnapshot() throws Exception {
    client = connect();
    TableMirror<Named> m = client.mirror(T, Named.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    packedSnapshot(conn, 10, item(1, "a"), item(2, "b"));
    assertThat(m.awaitReady(WAIT)).isTrue();

    // the key becomes code, which Named has no property for
    conn.send(new Message.SchemaChanged(T, 2, COLUMNS, List.of("code")));
    conn.send(batch(11, update(T, item(1, "a"), row("id", 1, "name", "a2", "code", "c1"), "c1")));
    FakeServer.Conn again = server.handshake(11);
    assertThat(again.expect(Message.Subscribe.class))
        .isEqualTo(Message.Subscribe.fresh(List.of(T)));
    again.send(
        new Message.SnapshotBegin(T, COLUMNS, List.of("code"), 12, 2),
        new Message.SnapshotRows(
            T,
            List.of(
                row("id", 1, "name", "a2", "code", "c1"), row("id", 2, "name", "b", "code", "c2"))),
        new Message.SnapshotEnd(T, 12));
    await().atMost(WAIT).until(() -> m.position() == 12);
    assertThat(m.primaryKey()).containsExactly("code");
    assertThat(m.get("c1")).isEqualTo(new Named(1, "a2"));
    assertThat(m.get("c2")).isEqualTo(new Named(2, "b"));
    // the old key's kind no longer fits: refused, not answered "no such row"
    assertThatThrownBy(() -> m.get(1)).hasMessageContaining("key column code is STRING");
    assertThat(m.size()).isEqualTo(2);
  }

  @Test
  void aMirrorThatTypedRowsCannotSeedGetsAFreshSnapshotAndTheOthersResume() throws Exception {
    client = connect();
    TableMirror<Named> typed = client.mirror(T, Named.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    packedSnapshot(conn, 10, item(1, "a"));
    assertThat(typed.awaitReady(WAIT)).isTrue();

    // Named has no code: the generic mirror cannot be seeded from it
    TableMirror<Map<String, Object>> generic = client.mirror(T);
    FakeServer.Conn again = server.handshake(10);
    assertThat(again.expect(Message.Subscribe.class))
        .isEqualTo(Message.Subscribe.fresh(List.of(T)));
    packedSnapshot(again, 12, item(1, "a"));
    assertThat(generic.awaitReady(WAIT)).isTrue();
    assertThat(generic.get(1)).containsEntry("code", "c1");
    assertThat(typed.get(1)).isEqualTo(new Named(1, "a"));
  }
}
