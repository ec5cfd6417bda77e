package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.Column;
import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Column forms of schemas nobody here wrote: generated columns (virtual and stored, one added while
 * serving), a MariaDB {@code INVISIBLE} column (which {@code SELECT *} leaves out), text in latin1
 * and utf8mb3 beside utf8mb4, a {@code BINARY(16)} key (a UUID as many schemas store it), a
 * PostgreSQL domain and an identity key. Mirrors hold every column as the table holds it.
 */
class ColumnFormsTest {

  @Test
  void mariadbGeneratedInvisibleAndNonUtf8ColumnsReachTheMirror() {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id BINARY(16) PRIMARY KEY, name VARCHAR(40) CHARACTER SET latin1,"
                + " label VARCHAR(40) CHARACTER SET utf8mb3, note VARCHAR(40) CHARACTER SET"
                + " utf8mb4, price DECIMAL(10,2), qty INT, total DECIMAL(12,2) AS (price * qty)"
                + " VIRTUAL, total2 DECIMAL(12,2) AS (price * qty) PERSISTENT, secret INT"
                + " INVISIBLE DEFAULT 7) DEFAULT CHARSET latin1",
            "INSERT INTO items (id, name, label, note, price, qty, secret) VALUES"
                + " (UNHEX('00112233445566778899AABBCCDDEEFF'), 'K\u00f6ln \u20ac', 'caf\u00e9',"
                + " '\ud83d\ude00', 1.50, 2, 1)");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "colforms", ddl, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("cf"), "items");
      assertThat(m.columns()).extracting(Column::name).contains("total", "total2", "secret");
      String items = p.db.table("items");
      p.sql(
          "UPDATE " + items + " SET qty = 3, secret = 9, name = 'na\u00efve \u20ac'",
          "INSERT INTO " + items + " (id, name, price, qty) VALUES (UNHEX('00'), 'x', 2, 2)");
      // SELECT * of the table leaves the invisible column out: compared without it, then alone
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                Map<String, Map<String, String>> mirror = Pipeline.mirrorContents(m);
                assertThat(mirror.values())
                    .extracting(r -> r.remove("secret"))
                    .containsExactlyInAnyOrder("7", "9");
                assertThat(mirror).isEqualTo(p.tableContents("items", m));
              });
      assertThat(Pipeline.mirrorContents(m).get("ABEiM0RVZneImaq7zN3u/w==|"))
          .containsEntry("name", "na\u00efve \u20ac")
          .containsEntry("label", "caf\u00e9")
          .containsEntry("note", "\ud83d\ude00")
          .containsEntry("total", "4.50")
          .containsEntry("secret", "9");
    }
  }

  @Test
  void postgresGeneratedDomainAndIdentityColumnsReachTheMirror() {
    List<String> ddl =
        List.of(
            "CREATE DOMAIN positive AS int CHECK (VALUE > 0)",
            "CREATE TABLE items (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text,"
                + " price numeric(10,2), qty positive, total numeric GENERATED ALWAYS AS (price *"
                + " qty) STORED)",
            "INSERT INTO items (name, price, qty) VALUES ('a', 1.5, 2)");
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "colforms", ddl, "items")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("cf"), "items");
      String items = p.db.table("items");
      p.sql(
          "UPDATE " + items + " SET qty = 3",
          "INSERT INTO " + items + " (name, price, qty) VALUES ('b', 2, 2)");
      p.awaitMirrorEqualsTable(m, "items");
      p.sql(
          "ALTER TABLE "
              + items
              + " ADD COLUMN twice numeric GENERATED ALWAYS AS (price * 2) STORED");
      p.sql("UPDATE " + items + " SET name = 'c' WHERE name = 'a'");
      p.awaitMirrorEqualsTable(m, "items");
      assertThat(Pipeline.mirrorContents(m).get("1|")).containsEntry("twice", "3.00");
    }
  }
}
