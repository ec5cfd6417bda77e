package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.Column;
import io.tablecast.client.TableMirror;
import io.tablecast.server.capture.ColumnChoice;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code cached_tables} entries with {@code columns} or {@code exclude_columns}: the mirror holds
 * exactly the chosen columns (the key always), in snapshots and changes, a change of left-out
 * columns only reaches nobody, and the mirror equals {@code SELECT} of those columns.
 */
class ColumnChoiceEndToEndTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsHoldOnlyTheChosenColumns(Kind kind) throws Exception {
    Pipeline p =
        Pipeline.create(
            kind,
            "choice",
            List.of(
                "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20), password_hash VARCHAR(100), note VARCHAR(40))",
                "CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2), cost DECIMAL(8,2))",
                "INSERT INTO users VALUES (1, 'ann', 'h1', 'x')",
                "INSERT INTO products VALUES (1, 'pen', 1.50, 0.40)"),
            "users",
            "products");
    try (p) {
      ServerSetups.withColumnChoices(
          p,
          Map.of(
              "users", ColumnChoice.excluding(List.of("password_hash")),
              "products", ColumnChoice.only(List.of("name", "price"))));
      var client = p.client("narrow");
      TableMirror<Map<String, Object>> users = p.readyMirror(client, "users");
      TableMirror<Map<String, Object>> products = p.readyMirror(client, "products");
      assertThat(users.columns()).extracting(Column::name).containsExactly("id", "name", "note");
      assertThat(products.columns())
          .extracting(Column::name)
          .containsExactly("id", "name", "price");
      assertThat(users.get(1)).containsOnlyKeys("id", "name", "note");
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      users.addListener(events::add);

      p.sql(
          // a left-out column only: reaches nobody
          "UPDATE users SET password_hash = 'h2' WHERE id = 1",
          "UPDATE users SET note = 'y' WHERE id = 1",
          "INSERT INTO users VALUES (2, 'bob', 'h3', NULL)",
          "UPDATE products SET cost = 0.50, price = 1.75 WHERE id = 1");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  events.size() == 2
                      && products.get(1) != null
                      && "1.75".equals(products.get(1).get("price")));
      assertThat(events).extracting(e -> e.newRow().get("note")).containsExactly("y", null);
      assertThat(users.get(2)).containsOnlyKeys("id", "name", "note").containsEntry("name", "bob");
      assertThat(products.get(1)).containsOnlyKeys("id", "name", "price");
      p.sql("CREATE VIEW users_chosen AS SELECT id, name, note FROM users");
      assertThat(Pipeline.mirrorContents(users))
          .isEqualTo(p.tableContents(p.db.table("users_chosen"), users));
    }
  }
}
