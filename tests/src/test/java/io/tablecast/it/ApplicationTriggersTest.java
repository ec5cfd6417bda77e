package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cached tables that carry the application's own triggers, as real schemas do: a BEFORE trigger
 * that stamps a column (what the mirror shows is the row as stored, stamp included), an AFTER
 * trigger of the same event as the capture's that writes into another cached table (a counter, an
 * audit row: both tables' mirrors follow), and a BEFORE trigger that skips some writes (nothing is
 * captured for them). {@code tablecast install} adds its triggers beside them and leaves them be.
 */
class ApplicationTriggersTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theApplicationsTriggersRunBesideTheCapturesAndTheMirrorsShowWhatTheyWrote(Kind kind)
      throws Exception {
    List<String> ddl =
        kind == Kind.MYSQL
            ? List.of(
                "CREATE TABLE orders (id INT PRIMARY KEY, total INT NOT NULL, stamped INT NOT NULL"
                    + " DEFAULT 0, note VARCHAR(20))",
                "CREATE TABLE order_counts (id INT PRIMARY KEY, n INT NOT NULL)",
                "INSERT INTO order_counts VALUES (1, 0)",
                "CREATE TRIGGER app_stamp BEFORE UPDATE ON orders FOR EACH ROW"
                    + " SET NEW.stamped = OLD.stamped + 1",
                "CREATE TRIGGER app_count AFTER INSERT ON orders FOR EACH ROW"
                    + " UPDATE order_counts SET n = n + 1 WHERE id = 1",
                "CREATE TRIGGER app_guard BEFORE INSERT ON orders FOR EACH ROW"
                    + " SET NEW.note = IFNULL(NEW.note, 'none')")
            : List.of(
                "CREATE TABLE orders (id INT PRIMARY KEY, total INT NOT NULL, stamped INT NOT NULL"
                    + " DEFAULT 0, note VARCHAR(20))",
                "CREATE TABLE order_counts (id INT PRIMARY KEY, n INT NOT NULL)",
                "INSERT INTO order_counts VALUES (1, 0)",
                "CREATE FUNCTION app_stamp() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN NEW.stamped := OLD.stamped + 1; RETURN NEW; END $$",
                "CREATE TRIGGER app_stamp BEFORE UPDATE ON orders FOR EACH ROW"
                    + " EXECUTE FUNCTION app_stamp()",
                "CREATE FUNCTION app_count() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN UPDATE order_counts SET n = n + 1 WHERE id = 1; RETURN NULL; END $$",
                "CREATE TRIGGER app_count AFTER INSERT ON orders FOR EACH ROW"
                    + " EXECUTE FUNCTION app_count()",
                "CREATE FUNCTION app_guard() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN IF NEW.total < 0 THEN RETURN NULL; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER app_guard BEFORE INSERT OR UPDATE ON orders FOR EACH ROW"
                    + " EXECUTE FUNCTION app_guard()");
    try (Pipeline p = Pipeline.create(kind, "app_triggers", ddl, "orders", "order_counts")) {
      p.startServer();
      TablecastClient client = p.client("app");
      TableMirror<Map<String, Object>> orders = p.readyMirror(client, "orders");
      TableMirror<Map<String, Object>> counts = p.readyMirror(client, "order_counts");

      p.sql(
          "INSERT INTO orders (id, total) VALUES (1, 10), (2, 20)",
          "UPDATE orders SET total = 11 WHERE id = 1",
          "UPDATE orders SET total = 12 WHERE id = 1");
      if (kind == Kind.POSTGRESQL) {
        p.sql(
            "INSERT INTO orders (id, total) VALUES (3, -1)", // skipped by the guard
            "UPDATE orders SET total = -5 WHERE id = 2"); // skipped too
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> counts.get(1) != null && ((Number) counts.get(1).get("n")).intValue() == 2);
      p.awaitMirrorEqualsTable(orders, "orders");
      p.awaitMirrorEqualsTable(counts, "order_counts");
      assertThat(orders.get(1)).containsEntry("total", 12).containsEntry("stamped", 2);
      assertThat(orders.get(2)).containsEntry("total", 20);
      assertThat(orders.get(3)).isNull();
      assertThat(applicationTriggers(p, kind))
          .as("the application's triggers are left be")
          .containsExactlyInAnyOrder("app_count", "app_guard", "app_stamp");
    }
  }

  private static Set<String> applicationTriggers(Pipeline p, Kind kind) throws Exception {
    Set<String> names = new TreeSet<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = "
                    + (kind == Kind.MYSQL ? "DATABASE()" : "current_schema()")
                    + " AND event_object_table = 'orders' AND trigger_name LIKE 'app%'")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }
}
