package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A mirror follows {@code schema_changed} beyond its column list: a new primary key re-keys its
 * rows, and a typed mirror whose row type no longer fits the table (a property's column renamed or
 * dropped, a value its property cannot take) says so through {@link TableMirror#staleReason()} and
 * its stale listeners, instead of reading nulls or keeping old values without a word.
 */
class SchemaChangeMirrorTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  /** The application's row type. */
  public record Item(long id, String name, Integer qty) {}

  private static ColumnInfo col(String name, ColumnKind kind) {
    return new ColumnInfo(name, kind == ColumnKind.STRING ? "text" : "int8", kind);
  }

  @Test
  void aNewPrimaryKeyReKeysTheRowsAndRowsLackingItLeaveUntilSentAgain() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      List<String> events = Collections.synchronizedList(new ArrayList<>());
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "code", "x"), row("id", 2, "code", "y"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      conn.send(batch(6, insert(T, row("id", 3), 3))); // a row the new key cannot address

      conn.send(
          new Message.SchemaChanged(
              T,
              2,
              List.of(col("id", ColumnKind.INTEGER), col("code", ColumnKind.STRING)),
              List.of("code")));
      conn.send(
          batch(
              7,
              insert(T, row("id", 3, "code", "z"), "z"),
              update(T, row("id", 1, "code", "x"), row("id", 10, "code", "x"), "x")));
      await().atMost(WAIT).until(() -> m.position() == 7);
      assertThat(m.primaryKey()).containsExactly("code");
      assertThat(m.get("x")).containsEntry("id", 10);
      assertThat(m.get("y")).containsEntry("id", 2);
      assertThat(m.get("z")).containsEntry("id", 3);
      // the old key's kind no longer fits: refused, not answered "no such row"
      assertThatThrownBy(() -> m.get(1)).hasMessageContaining("key column code is STRING");
      assertThat(m.size()).isEqualTo(3);
      await().atMost(WAIT).until(() -> events.size() == 4);
      assertThat(events).containsExactly("INSERT 3", "DELETE 3", "INSERT z", "UPDATE x");
    }
  }

  @Test
  void aTypedMirrorSaysWhenItsRowTypeNoLongerFitsAndWhenItFitsAgain() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Item> m = client.mirror(T, Item.class);
      List<String> heard = Collections.synchronizedList(new ArrayList<>());
      m.addStaleListener(reason -> heard.add(String.valueOf(reason)));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T,
          List.of("id"),
          5,
          row("id", 1, "name", "a", "qty", 4),
          row("id", 2, "name", "b", "qty", 5));
      assertThat(m.awaitReady(WAIT)).isTrue();
      assertThat(m.staleReason()).isNull();

      // RENAME COLUMN name TO title: Item.name has no column any more
      conn.send(
          new Message.SchemaChanged(
              T,
              2,
              List.of(
                  col("id", ColumnKind.INTEGER),
                  col("title", ColumnKind.STRING),
                  col("qty", ColumnKind.INTEGER)),
              List.of("id")));
      conn.send(
          batch(
              6,
              update(
                  T,
                  row("id", 1, "name", "a", "qty", 4),
                  row("id", 1, "title", "a", "qty", 4),
                  1)));
      await().atMost(WAIT).until(() -> m.position() == 6);
      assertThat(m.get(1).name()).as("what the row type now reads").isNull();
      assertThat(m.staleReason()).contains("Item's property name").contains(T);

      // renamed back: fits again
      conn.send(
          new Message.SchemaChanged(
              T,
              3,
              List.of(
                  col("id", ColumnKind.INTEGER),
                  col("name", ColumnKind.STRING),
                  col("qty", ColumnKind.INTEGER)),
              List.of("id")));
      conn.send(
          batch(
              7,
              update(
                  T,
                  row("id", 1, "title", "a", "qty", 4),
                  row("id", 1, "name", "a", "qty", 4),
                  1)));
      await().atMost(WAIT).until(() -> m.position() == 7);
      assertThat(m.staleReason()).isNull();

      // qty becomes text: a value Item.qty cannot take keeps the row's old value, and says so
      conn.send(
          new Message.SchemaChanged(
              T,
              4,
              List.of(
                  col("id", ColumnKind.INTEGER),
                  col("name", ColumnKind.STRING),
                  col("qty", ColumnKind.STRING)),
              List.of("id")));
      conn.send(
          batch(
              8,
              update(
                  T,
                  row("id", 2, "name", "b", "qty", 5),
                  row("id", 2, "name", "b", "qty", "many"),
                  2)));
      await().atMost(WAIT).until(() -> m.position() == 8);
      assertThat(m.get(2).qty()).isEqualTo(5);
      assertThat(m.staleReason())
          .contains("1 row of " + T + " could not be mapped to Item")
          .contains("key 2");

      // a later change of that row maps: followed again
      conn.send(
          batch(
              9,
              update(
                  T,
                  row("id", 2, "name", "b", "qty", "many"),
                  row("id", 2, "name", "b", "qty", "6"),
                  2)));
      await().atMost(WAIT).until(() -> m.position() == 9);
      assertThat(m.get(2).qty()).isEqualTo(6);
      assertThat(m.staleReason()).isNull();
      await().atMost(WAIT).until(() -> heard.size() == 4);
      assertThat(heard.get(0)).contains("property name");
      assertThat(heard.get(1)).isEqualTo("null");
      assertThat(heard.get(2)).contains("could not be mapped");
      assertThat(heard.get(3)).isEqualTo("null");
    }
  }
}
