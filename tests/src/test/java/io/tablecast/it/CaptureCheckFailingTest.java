package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: the capture check, on connections of its own, fails round after round while the
 * tail reads on through its pooled connection (here: the database takes no new connection, as when
 * {@code max_user_connections} is reached). A {@code TRUNCATE}, which fires no trigger and which
 * only the check finds (reconciliation off), goes unnoticed meanwhile: every mirror is stale,
 * saying so, and once the check works the truncate is found and the mirrors follow again with the
 * table as it is. Before, the checks' failures were WARNs in the server's log only and the mirrors
 * said they were current while they held the truncated rows. (PostgreSQL checks on the tail's own
 * connection, before its read: a check that fails is a read that fails, and every table is stale
 * for the database.)
 */
class CaptureCheckFailingTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void mirrorsAreStaleWhileTheCaptureCheckFailsAndFollowWhatItMissedOnceItWorks() throws Exception {
    Pipeline p =
        Pipeline.create(
            Kind.MYSQL,
            "check_failing",
            List.of(
                "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL)",
                "CREATE TABLE notes (id int PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO items VALUES (1, 'a'), (2, 'b')",
                "INSERT INTO notes VALUES (1, 0)"),
            "items",
            "notes");
    try (p;
        CuttableProxy db = CuttableProxy.raw("127.0.0.1", 3306)) {
      String viaProxy = p.db.jdbcUrl().replace("127.0.0.1:3306", db.address());
      // no reconciliation: only the capture check finds a TRUNCATE; checks every second
      ServerSetups.atUrl(p, viaProxy, Duration.ZERO);
      TablecastClient client = p.client("checks");
      TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
      TableMirror<Map<String, Object>> notes = p.readyMirror(client, "notes");
      List<String> heard = Collections.synchronizedList(new ArrayList<>());
      items.addStaleListener(reason -> heard.add(String.valueOf(reason)));

      db.block(true); // new connections refused: the tail's pooled one reads on
      p.sql("INSERT INTO items VALUES (3, 'read while the checks fail')");
      await().atMost(WAIT).until(() -> items.get(3) != null);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(items.staleReason())
                    .contains("capture check")
                    .contains("failed 2 times in a row")
                    .contains("TRUNCATE");
                assertThat(notes.staleReason()).contains("capture check");
              });
      assertThat(Health.of(p)).contains("\"staleTables\":2");

      p.sql("TRUNCATE TABLE items", "INSERT INTO items VALUES (4, 'after the truncate')");
      await().atMost(WAIT).until(() -> items.get(4) != null);
      assertThat(items.get(1)).as("the truncate is not seen yet: the mirror says so").isNotNull();
      assertThat(items.staleReason()).contains("capture check");

      db.block(false);
      await().atMost(WAIT).until(() -> items.staleReason() == null && notes.staleReason() == null);
      assertThat(items.get(1)).as("followed again with the truncate found").isNull();
      p.awaitMirrorEqualsTable(items, "items");
      assertThat(heard).hasSize(2);
      assertThat(heard.get(1)).isEqualTo("null");
      assertThat(Health.of(p)).isEqualTo("200 {\"status\":\"UP\"}");
    }
  }
}
