package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static io.tablecast.client.IndexDefinition.hash;
import static io.tablecast.client.IndexDefinition.sorted;
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
 * What an index does when its table does not keep its promises: a unique index finding duplicates
 * keeps every row and says so; an index whose column is dropped or renamed fails its lookups,
 * naming itself and the column, until the column is back; a new primary key re-keys the index.
 */
class IndexSchemaAndUniqueTest {
  static final String T = "shop.users";
  static final Duration WAIT = Duration.ofSeconds(10);

  private static ColumnInfo col(String name) {
    return new ColumnInfo(name, "text", ColumnKind.STRING);
  }

  /** The part after the @; throws on an address without one. */
  private static String domain(String email) {
    return email.substring(email.indexOf('@')).substring(1);
  }

  private static Object id(Map<String, Object> row) {
    return ((Number) row.get("id")).longValue();
  }

  @Test
  void aUniqueIndexWithDuplicatesKeepsEveryRowAndSaysSo() throws Exception {
    List<String> clashes = Collections.synchronizedList(new ArrayList<>());
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            TablecastClient.builder()
                .servers(server.address())
                .errorListener(
                    new ErrorListener() {
                      @Override
                      public void uniqueIndexClash(
                          String table, String index, Object key, List<Object> primaryKeys) {
                        clashes.add(table + " " + index + " " + key + " " + primaryKeys);
                      }
                    })
                .build()) {
      TableMirror<Map<String, Object>> m =
          client.mirror(T, List.of(hash("by_email", "email").unique()));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T,
          List.of("id"),
          1,
          row("id", 1, "email", "a@x"),
          row("id", 2, "email", "a@x"),
          row("id", 3, "email", "b@x"),
          row("id", 4, "email", null),
          row("id", 5, "email", null));
      assertThat(m.awaitReady(WAIT)).isTrue();
      MirrorIndex<Map<String, Object>> byEmail = m.index("by_email");

      await().atMost(WAIT).until(() -> clashes.size() == 1);
      assertThat(clashes.get(0)).startsWith(T + " by_email a@x [").contains("1").contains("2");
      assertThat(byEmail.get("a@x"))
          .extracting(IndexSchemaAndUniqueTest::id)
          .containsExactlyInAnyOrder(1L, 2L);
      assertThatThrownBy(() -> byEmail.getOne("a@x"))
          .isInstanceOf(TablecastException.class)
          .hasMessageContaining("unique index by_email of shop.users holds 2 rows for the key a@x");
      assertThat(id(byEmail.getOne("b@x"))).isEqualTo(3L);
      assertThat(byEmail.get(null)).hasSize(2); // nulls never clash

      conn.send(
          batch(
              2,
              update(T, row("id", 2, "email", "a@x"), row("id", 2, "email", "c@x"), 2),
              insert(T, row("id", 6, "email", "b@x"), 6)));
      await().atMost(WAIT).until(() -> m.position() == 2);
      assertThat(id(byEmail.getOne("a@x"))).isEqualTo(1L);
      assertThat(id(byEmail.getOne("c@x"))).isEqualTo(2L);
      assertThat(byEmail.get("b@x"))
          .extracting(IndexSchemaAndUniqueTest::id)
          .containsExactlyInAnyOrder(3L, 6L);
      await().atMost(WAIT).until(() -> clashes.size() == 2);
      assertThat(clashes.get(1)).isIn(T + " by_email b@x [3, 6]", T + " by_email b@x [6, 3]");
    }
  }

  @Test
  void anIndexWhoseColumnIsRenamedFailsNamingItUntilTheColumnIsBack() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m =
          client.mirror(T, List.of(hash("by_name", "name"), sorted("by_id", "id")));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 1, row("id", 1, "name", "ann"), row("id", 2, "name", "bo"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      MirrorIndex<Map<String, Object>> byName = m.index("by_name");
      assertThat(byName.unavailableReason()).isNull();

      // ALTER TABLE ... RENAME COLUMN name TO title
      conn.send(new Message.SchemaChanged(T, 2, List.of(col("id"), col("title")), List.of("id")));
      conn.send(batch(2, update(T, row("id", 1, "name", "ann"), row("id", 1, "title", "ann"), 1)));
      await().atMost(WAIT).until(() -> m.position() == 2);
      assertThat(byName.unavailableReason())
          .contains("index by_name of shop.users is unavailable")
          .contains("name is not a column of shop.users");
      assertThatThrownBy(() -> byName.get("ann"))
          .isInstanceOf(TablecastException.class)
          .hasMessageContaining("by_name")
          .hasMessageContaining("name is not a column");
      assertThatThrownBy(() -> m.query().where("by_name", "bo").list())
          .isInstanceOf(TablecastException.class)
          .hasMessageContaining("by_name");
      assertThat(m.index("by_id").ordered()).hasSize(2); // the other index still answers

      // renamed back; the index followed its rows all along
      conn.send(new Message.SchemaChanged(T, 3, List.of(col("id"), col("name")), List.of("id")));
      conn.send(
          batch(
              3,
              update(T, row("id", 1, "title", "ann"), row("id", 1, "name", "anna"), 1),
              update(T, row("id", 2, "name", "bo"), row("id", 2, "name", "bo"), 2)));
      await().atMost(WAIT).until(() -> m.position() == 3);
      assertThat(byName.unavailableReason()).isNull();
      assertThat(byName.get("anna")).extracting(IndexSchemaAndUniqueTest::id).containsExactly(1L);
      assertThat(byName.get("ann")).isEmpty();
      assertThat(byName.get("bo")).extracting(IndexSchemaAndUniqueTest::id).containsExactly(2L);
    }
  }

  @Test
  void aNewPrimaryKeyReKeysTheIndexes() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T, List.of(hash("by_team", "team")));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T,
          List.of("id"),
          1,
          row("id", 1, "code", "x", "team", "red"),
          row("id", 2, "code", "y", "team", "red"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      conn.send(
          new Message.SchemaChanged(
              T, 2, List.of(col("id"), col("code"), col("team")), List.of("code")));
      conn.send(
          batch(
              2,
              update(
                  T,
                  row("id", 2, "code", "y", "team", "red"),
                  row("id", 2, "code", "y", "team", "blue"),
                  "y")));
      await().atMost(WAIT).until(() -> m.position() == 2);
      assertThat(m.index("by_team").get("red"))
          .extracting(IndexSchemaAndUniqueTest::id)
          .containsExactly(1L);
      assertThat(m.index("by_team").get("blue"))
          .extracting(IndexSchemaAndUniqueTest::id)
          .containsExactly(2L);
    }
  }

  @Test
  void aKeyFunctionThatThrowsMakesItsIndexUnavailableNamingIt() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m =
          client.mirror(
              T,
              List.of(
                  IndexDefinition.<Map<String, Object>>hash(
                      "by_domain", r -> domain((String) r.get("email")))));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 1, row("id", 1, "email", "a@x"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      assertThat(m.index("by_domain").get("x")).hasSize(1);
      conn.send(batch(2, insert(T, row("id", 2, "email", "nobody"), 2)));
      await().atMost(WAIT).until(() -> m.position() == 2);
      assertThatThrownBy(() -> m.index("by_domain").get("x"))
          .isInstanceOf(TablecastException.class)
          .hasMessageContaining("the key function of index by_domain of shop.users threw")
          .hasMessageContaining("key 2");
      assertThat(m.get(2)).isNotNull(); // the row is in the mirror all the same
    }
  }
}
