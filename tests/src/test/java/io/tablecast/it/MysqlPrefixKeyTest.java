package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: a primary key on a prefix of a column ({@code PRIMARY KEY (name(8))}, as schemas
 * keyed by long texts have it), so that the database tells two rows apart by the prefix alone. The
 * mirror keys rows by the whole value, which the prefix's uniqueness makes unique too: an update
 * beyond the prefix is a key that moved, and the mirror ends equal to its table.
 */
class MysqlPrefixKeyTest {

  @Test
  void aPrimaryKeyOnAColumnPrefixIsFollowed() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.MYSQL,
            "prefix_key",
            List.of(
                "CREATE TABLE docs (name VARCHAR(200) NOT NULL, body TEXT, PRIMARY KEY (name(8)))",
                "INSERT INTO docs VALUES ('handbook-2025', 'a'), ('contract-7', 'b')"),
            "docs")) {
      p.startServer();
      TableMirror<Map<String, Object>> docs = p.readyMirror(p.client("prefix"), "docs");
      assertThat(docs.get("handbook-2025")).containsEntry("body", "a");

      p.sql(
          "UPDATE docs SET name = 'handbook-2026', body = 'a2' WHERE name = 'handbook-2025'",
          "UPDATE docs SET body = 'b2' WHERE name = 'contract-7'",
          "INSERT INTO docs VALUES ('appendix-1', 'c')",
          "DELETE FROM docs WHERE name = 'appendix-1'");
      await().atMost(Duration.ofSeconds(30)).until(() -> docs.get("handbook-2026") != null);
      p.awaitMirrorEqualsTable(docs, "docs");
      assertThat(docs.get("handbook-2025")).isNull();
      assertThat(docs.get("contract-7")).containsEntry("body", "b2");
      assertThat(docs.size()).isEqualTo(2);
    }
  }
}
