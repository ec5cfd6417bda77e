package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB foreign-key actions (ON DELETE / ON UPDATE CASCADE and SET NULL) change child rows
 * without firing the child's triggers; the capture records the affected child keys from the
 * parent's triggers. Every test goes through {@link Pipeline}, which fails when reconciliation had
 * to repair a row: each cascaded change must come through the stream.
 */
class MysqlCascadeTest {

  private static final Duration CHANGE = Duration.ofSeconds(20);

  @Test
  void deleteCascadeAndDeleteSetNullReachTheChildMirrors() {
    List<String> ddl =
        List.of(
            "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20))",
            "CREATE TABLE child_cascade (id INT PRIMARY KEY, parent_id INT NOT NULL, note VARCHAR(20), "
                + "CONSTRAINT fk_cascade FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE)",
            "CREATE TABLE child_null (id INT PRIMARY KEY, parent_id INT NULL, "
                + "CONSTRAINT fk_null FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE SET NULL)",
            "INSERT INTO parent VALUES (1, 'one'), (2, 'two'), (3, 'three')",
            "INSERT INTO child_cascade VALUES (10, 1, 'a'), (11, 1, 'b'), (12, 2, 'c'), (13, 3, 'd')",
            "INSERT INTO child_null VALUES (20, 1), (21, 2), (22, 3)");
    try (Pipeline p =
        Pipeline.start(Kind.MYSQL, "fk_delete", ddl, "parent", "child_cascade", "child_null")) {
      TablecastClient client = p.client("fk-delete");
      TableMirror<Map<String, Object>> cascade = p.readyMirror(client, "child_cascade");
      TableMirror<Map<String, Object>> setNull = p.readyMirror(client, "child_null");
      TableMirror<Map<String, Object>> parent = p.readyMirror(client, "parent");
      List<ChangeEvent<Map<String, Object>>> cascadeEvents = listen(cascade);
      List<ChangeEvent<Map<String, Object>>> nullEvents = listen(setNull);

      p.sql("DELETE FROM parent WHERE id = 1");
      await().atMost(CHANGE).until(() -> cascadeEvents.size() >= 2 && nullEvents.size() >= 1);
      assertThat(cascadeEvents)
          .extracting(ChangeEvent::op)
          .containsExactly(ChangeType.DELETE, ChangeType.DELETE);
      assertThat(cascadeEvents).extracting(ChangeEvent::key).containsExactlyInAnyOrder(10L, 11L);
      assertThat(nullEvents).extracting(ChangeEvent::op).containsExactly(ChangeType.UPDATE);
      assertThat(nullEvents.get(0).newRow())
          .containsEntry("id", 20)
          .containsEntry("parent_id", null);

      // several parents in one transaction, mixed with a direct child write
      p.transaction(
          "INSERT INTO child_cascade VALUES (14, 3, 'e')", "DELETE FROM parent WHERE id IN (2, 3)");
      p.awaitMirrorEqualsTable(cascade, "child_cascade");
      p.awaitMirrorEqualsTable(setNull, "child_null");
      p.awaitMirrorEqualsTable(parent, "parent");
      assertThat(cascade.size()).isZero();
      assertThat(setNull.rows()).allSatisfy(r -> assertThat(r).containsEntry("parent_id", null));
    }
  }

  @Test
  void updateCascadeAndUpdateSetNullReachTheChildMirrors() {
    List<String> ddl =
        List.of(
            "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(20))",
            "CREATE TABLE child_cascade (id INT PRIMARY KEY, parent_id INT NOT NULL, "
                + "CONSTRAINT fk_up_cascade FOREIGN KEY (parent_id) REFERENCES parent (id) ON UPDATE CASCADE)",
            "CREATE TABLE child_null (id INT PRIMARY KEY, parent_id INT NULL, "
                + "CONSTRAINT fk_up_null FOREIGN KEY (parent_id) REFERENCES parent (id) ON UPDATE SET NULL)",
            "INSERT INTO parent VALUES (1, 'one'), (2, 'two')",
            "INSERT INTO child_cascade VALUES (10, 1), (11, 1), (12, 2)",
            "INSERT INTO child_null VALUES (20, 1), (21, 2)");
    try (Pipeline p =
        Pipeline.start(Kind.MYSQL, "fk_update", ddl, "parent", "child_cascade", "child_null")) {
      TablecastClient client = p.client("fk-update");
      TableMirror<Map<String, Object>> cascade = p.readyMirror(client, "child_cascade");
      TableMirror<Map<String, Object>> setNull = p.readyMirror(client, "child_null");
      List<ChangeEvent<Map<String, Object>>> cascadeEvents = listen(cascade);
      List<ChangeEvent<Map<String, Object>>> nullEvents = listen(setNull);

      p.sql("UPDATE parent SET id = 100 WHERE id = 1");
      await().atMost(CHANGE).until(() -> cascadeEvents.size() >= 2 && nullEvents.size() >= 1);
      assertThat(cascadeEvents).extracting(ChangeEvent::op).containsOnly(ChangeType.UPDATE);
      assertThat(cascade.get(10)).containsEntry("parent_id", 100);
      assertThat(cascade.get(11)).containsEntry("parent_id", 100);
      assertThat(setNull.get(20)).containsEntry("parent_id", null);

      p.sql("UPDATE parent SET name = 'renamed'"); // not the key: the children do not change
      p.transaction(
          "UPDATE parent SET id = 200 WHERE id = 2", "UPDATE parent SET id = 300 WHERE id = 100");
      p.awaitMirrorEqualsTable(cascade, "child_cascade");
      p.awaitMirrorEqualsTable(setNull, "child_null");
      assertThat(cascade.get(12)).containsEntry("parent_id", 200);
      assertThat(cascade.get(10)).containsEntry("parent_id", 300);
    }
  }

  @Test
  void threeLevelChainChangesEveryLevelOnDeleteAndOnRekey() {
    List<String> ddl =
        List.of(
            "CREATE TABLE region (code VARCHAR(8) PRIMARY KEY, name VARCHAR(20))",
            "CREATE TABLE store (region_code VARCHAR(8) NOT NULL, store_no INT NOT NULL, name VARCHAR(20), "
                + "PRIMARY KEY (region_code, store_no), CONSTRAINT fk_store_region FOREIGN KEY (region_code) "
                + "REFERENCES region (code) ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE shelf (region_code VARCHAR(8) NOT NULL, store_no INT NOT NULL, shelf_no INT NOT NULL, "
                + "label VARCHAR(20), PRIMARY KEY (region_code, store_no, shelf_no), CONSTRAINT fk_shelf_store "
                + "FOREIGN KEY (region_code, store_no) REFERENCES store (region_code, store_no) "
                + "ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE item (id INT PRIMARY KEY, region_code VARCHAR(8), store_no INT, shelf_no INT, "
                + "CONSTRAINT fk_item_shelf FOREIGN KEY (region_code, store_no, shelf_no) "
                + "REFERENCES shelf (region_code, store_no, shelf_no) ON DELETE SET NULL ON UPDATE CASCADE)",
            "INSERT INTO region VALUES ('eu', 'Europe'), ('us', 'States')",
            "INSERT INTO store VALUES ('eu', 1, 'Paris'), ('eu', 2, 'Lyon'), ('us', 1, 'Boston')",
            "INSERT INTO shelf VALUES ('eu', 1, 1, 'a'), ('eu', 1, 2, 'b'), ('eu', 2, 1, 'c'), ('us', 1, 1, 'd')",
            "INSERT INTO item VALUES (1, 'eu', 1, 1), (2, 'eu', 2, 1), (3, 'us', 1, 1), (4, NULL, NULL, NULL)");
    String[] tables = {"region", "store", "shelf", "item"};
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_chain", ddl, tables)) {
      TablecastClient client = p.client("fk-chain");
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      for (String t : tables) {
        mirrors.add(p.readyMirror(client, t));
      }
      TableMirror<Map<String, Object>> store = mirrors.get(1);
      TableMirror<Map<String, Object>> shelf = mirrors.get(2);
      TableMirror<Map<String, Object>> item = mirrors.get(3);

      // re-keys stores and shelves, moves items
      p.sql("UPDATE region SET code = 'emea' WHERE code = 'eu'");
      await()
          .atMost(CHANGE)
          .until(
              () ->
                  shelf.get("emea", 2, 1) != null
                      && item.get(2).get("region_code") != null
                      && item.get(2).get("region_code").equals("emea"));
      assertThat(store.get("eu", 1)).isNull();
      assertThat(store.get("emea", 1)).containsEntry("name", "Paris");
      assertThat(shelf.get("eu", 1, 2)).isNull();
      assertThat(shelf.get("emea", 1, 2)).containsEntry("label", "b");
      assertThat(item.get(1)).containsEntry("region_code", "emea");
      awaitAllEqual(p, mirrors, tables);

      p.sql(
          "DELETE FROM region WHERE code = 'us'"); // deletes its store and shelf, orphans its item
      await()
          .atMost(CHANGE)
          .until(() -> shelf.get("us", 1, 1) == null && item.get(3).get("shelf_no") == null);
      assertThat(store.get("us", 1)).isNull();
      assertThat(item.get(3)).containsEntry("region_code", null).containsEntry("store_no", null);
      awaitAllEqual(p, mirrors, tables);
      assertThat(shelf.size()).isEqualTo(3);
    }
  }

  @Test
  void selfReferencingTreeLosesWholeSubtreesAndItsProductsFollowARekeyedLeaf() {
    List<String> ddl =
        List.of(
            "CREATE TABLE category (id INT PRIMARY KEY, parent_id INT NULL, name VARCHAR(20), "
                + "CONSTRAINT fk_category_parent FOREIGN KEY (parent_id) REFERENCES category (id) "
                + "ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE product (id INT PRIMARY KEY, category_id INT NOT NULL, name VARCHAR(20), "
                + "CONSTRAINT fk_product_category FOREIGN KEY (category_id) REFERENCES category (id) "
                + "ON DELETE CASCADE ON UPDATE CASCADE)",
            // 1 ─┬─ 2 ─┬─ 4 ── 6 ── 7
            //    │     └─ 5
            //    └─ 3 ── 8
            "INSERT INTO category VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'aa'), (5, 2, 'ab'), "
                + "(6, 4, 'aaa'), (7, 6, 'aaaa'), (8, 3, 'ba')",
            "INSERT INTO product VALUES (100, 7, 'deep'), (101, 5, 'mid'), (102, 8, 'other'), (103, 1, 'top')");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_tree", ddl, "category", "product")) {
      TablecastClient client = p.client("fk-tree");
      TableMirror<Map<String, Object>> category = p.readyMirror(client, "category");
      TableMirror<Map<String, Object>> product = p.readyMirror(client, "product");

      p.sql("DELETE FROM category WHERE id = 2"); // four levels: 2 → 4 → 6 → 7, and 5
      await().atMost(CHANGE).until(() -> category.size() == 3 && product.size() == 2);
      assertThat(category.copyToMap().keySet()).containsExactlyInAnyOrder(1L, 3L, 8L);
      assertThat(product.copyToMap().keySet()).containsExactlyInAnyOrder(102L, 103L);

      // a re-keyed leaf: its products follow the new key
      p.sql("UPDATE category SET id = 80 WHERE id = 8");
      await()
          .atMost(CHANGE)
          .until(
              () ->
                  category.get(80) != null
                      && product.get(102) != null
                      && Integer.valueOf(80).equals(product.get(102).get("category_id")));
      assertThat(category.get(8)).isNull();
      assertThat(category.get(80)).containsEntry("parent_id", 3);
      // InnoDB refuses a self-referencing ON UPDATE CASCADE that would change the same table again
      // (it acts as RESTRICT): a node with children cannot be re-keyed, so there is nothing to
      // capture
      assertThatThrownBy(() -> p.sql("UPDATE category SET id = 30 WHERE id = 3"))
          .hasMessageContaining("foreign key constraint fails");
      p.awaitMirrorEqualsTable(category, "category");
      p.awaitMirrorEqualsTable(product, "product");

      p.sql("DELETE FROM category WHERE id = 1"); // the whole tree
      await().atMost(CHANGE).until(() -> category.size() == 0 && product.size() == 0);
    }
  }

  @Test
  void childWhoseKeyContainsTheCascadedColumnLosesTheOldKeyAndGainsTheNew() {
    List<String> ddl =
        List.of(
            "CREATE TABLE tenant (id INT PRIMARY KEY, name VARCHAR(20))",
            "CREATE TABLE membership (tenant_id INT NOT NULL, user_name VARCHAR(20) NOT NULL, role VARCHAR(10), "
                + "PRIMARY KEY (tenant_id, user_name), CONSTRAINT fk_membership_tenant FOREIGN KEY (tenant_id) "
                + "REFERENCES tenant (id) ON DELETE CASCADE ON UPDATE CASCADE)",
            "INSERT INTO tenant VALUES (1, 'acme'), (2, 'globex')",
            "INSERT INTO membership VALUES (1, 'ann', 'admin'), (1, 'bob', 'user'), (2, 'cid', 'user')");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_rekey", ddl, "tenant", "membership")) {
      TableMirror<Map<String, Object>> membership =
          p.readyMirror(p.client("fk-rekey"), "membership");
      List<ChangeEvent<Map<String, Object>>> events = listen(membership);

      p.sql("UPDATE tenant SET id = 5 WHERE id = 1");
      await().atMost(CHANGE).until(() -> events.size() >= 4);
      assertThat(events)
          .filteredOn(e -> e.op() == ChangeType.DELETE)
          .extracting(e -> e.oldRow().get("user_name"))
          .containsExactlyInAnyOrder("ann", "bob");
      assertThat(events)
          .filteredOn(e -> e.op() == ChangeType.DELETE)
          .extracting(e -> e.oldRow().get("tenant_id"))
          .containsOnly(1);
      assertThat(events)
          .filteredOn(e -> e.op() == ChangeType.INSERT)
          .extracting(e -> e.newRow().get("tenant_id"))
          .containsExactly(5, 5);
      assertThat(membership.get(1, "ann")).isNull();
      assertThat(membership.get(5, "ann")).containsEntry("role", "admin");

      p.sql("DELETE FROM tenant WHERE id = 2");
      p.awaitMirrorEqualsTable(membership, "membership");
      assertThat(membership.size()).isEqualTo(2);
    }
  }

  /**
   * Under a case-insensitive collation {@code 'abc' = 'ABC'}, yet InnoDB cascades a case-only
   * change of a referenced key to the children (their keys change too). Found by {@code
   * RealisticSchemaTest}: the parent trigger compared old and new key with the collation.
   */
  @Test
  void aCaseOnlyKeyChangeUnderACaseInsensitiveCollationReachesTheChildren() {
    List<String> ddl =
        List.of(
            "CREATE TABLE category (code VARCHAR(20) PRIMARY KEY) COLLATE utf8mb4_unicode_ci",
            "CREATE TABLE attribute (category_code VARCHAR(20) NOT NULL, name VARCHAR(20) NOT NULL, "
                + "PRIMARY KEY (category_code, name), CONSTRAINT fk_attribute_category FOREIGN KEY (category_code) "
                + "REFERENCES category (code) ON DELETE CASCADE ON UPDATE CASCADE) COLLATE utf8mb4_unicode_ci",
            "CREATE TABLE item (id INT PRIMARY KEY, category_code VARCHAR(20), CONSTRAINT fk_item_category "
                + "FOREIGN KEY (category_code) REFERENCES category (code) ON DELETE SET NULL ON UPDATE CASCADE) "
                + "COLLATE utf8mb4_unicode_ci",
            "INSERT INTO category VALUES ('shoes')",
            "INSERT INTO attribute VALUES ('shoes', 'size'), ('shoes', 'colour')",
            "INSERT INTO item VALUES (1, 'shoes')");
    String[] tables = {"category", "attribute", "item"};
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_case", ddl, tables)) {
      TablecastClient client = p.client("fk-case");
      List<TableMirror<Map<String, Object>>> mirrors =
          List.of(
              p.readyMirror(client, "category"),
              p.readyMirror(client, "attribute"),
              p.readyMirror(client, "item"));
      p.sql("UPDATE category SET code = 'Shoes' WHERE code = 'shoes'");
      awaitAllEqual(p, mirrors, tables);
      assertThat(mirrors.get(2).get(1)).containsEntry("category_code", "Shoes");
    }
  }

  @Test
  void cachedChildFollowsCascadesFromParentsTheServerDoesNotCache() throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE account (id INT PRIMARY KEY)",
            "CREATE TABLE login (id INT PRIMARY KEY, account_id INT NOT NULL, CONSTRAINT fk_login_account "
                + "FOREIGN KEY (account_id) REFERENCES account (id) ON DELETE CASCADE ON UPDATE CASCADE)",
            "CREATE TABLE org (id INT PRIMARY KEY)",
            "CREATE TABLE team (id INT PRIMARY KEY, org_id INT NOT NULL, CONSTRAINT fk_team_org "
                + "FOREIGN KEY (org_id) REFERENCES org (id) ON DELETE CASCADE)",
            "CREATE TABLE member (id INT PRIMARY KEY, team_id INT NULL, CONSTRAINT fk_member_team "
                + "FOREIGN KEY (team_id) REFERENCES team (id) ON DELETE SET NULL)",
            "INSERT INTO account VALUES (1), (2)",
            "INSERT INTO login VALUES (10, 1), (11, 1), (12, 2)",
            "INSERT INTO org VALUES (1), (2)",
            "INSERT INTO team VALUES (100, 1), (101, 2)",
            "INSERT INTO member VALUES (1000, 100), (1001, 100), (1002, 101)");
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_uncached", ddl, "login", "member")) {
      TablecastClient client = p.client("fk-uncached");
      TableMirror<Map<String, Object>> login = p.readyMirror(client, "login");
      TableMirror<Map<String, Object>> member = p.readyMirror(client, "member");
      assertThat(triggerCount(p, "account"))
          .as("key-recording triggers on the uncached parent")
          .isPositive();
      assertThat(triggerCount(p, "org"))
          .as("key-recording triggers on the uncached grandparent")
          .isPositive();

      p.sql("UPDATE account SET id = 7 WHERE id = 1");
      await()
          .atMost(CHANGE)
          .until(() -> Integer.valueOf(7).equals(login.get(10).get("account_id")));
      p.sql("DELETE FROM account WHERE id = 2");
      await().atMost(CHANGE).until(() -> login.get(12) == null);
      p.sql(
          "DELETE FROM org WHERE id = 1"); // deletes team 100 (uncached), which orphans two members
      await()
          .atMost(CHANGE)
          .until(
              () ->
                  member.get(1000).get("team_id") == null
                      && member.get(1001).get("team_id") == null);
      p.awaitMirrorEqualsTable(login, "login");
      p.awaitMirrorEqualsTable(member, "member");
      assertThat(member.get(1002)).containsEntry("team_id", 101);
    }
  }

  @Test
  void foreignKeyAddedWhileTheServerRunsIsFoundAndItsCascadesCaptured() throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE warehouse (id INT PRIMARY KEY)",
            "CREATE TABLE bin (id INT PRIMARY KEY, warehouse_id INT NOT NULL, KEY (warehouse_id))",
            "INSERT INTO warehouse VALUES (1), (2)",
            "INSERT INTO bin VALUES (10, 1), (11, 1), (12, 2)");
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "fk_added", ddl, "bin")) {
      p.startServer();
      TableMirror<Map<String, Object>> bin = p.readyMirror(p.client("fk-added"), "bin");
      assertThat(triggerCount(p, "warehouse")).isZero();

      // the parent is not cached, so nothing in the configuration names it
      p.sql(
          "ALTER TABLE bin ADD CONSTRAINT fk_bin_warehouse FOREIGN KEY (warehouse_id) REFERENCES warehouse (id) "
              + "ON DELETE CASCADE");
      await().atMost(Duration.ofSeconds(30)).until(() -> triggerCount(p, "warehouse") > 0);
      assertThat(
              p.server()
                  .metrics()
                  .registry()
                  .find("tablecast.capture.problems")
                  .tag("table", p.db.table("bin"))
                  .tag("kind", "missing_trigger")
                  .counters())
          .isNotEmpty();

      p.sql("DELETE FROM warehouse WHERE id = 1");
      await().atMost(CHANGE).until(() -> bin.size() == 1);
      p.awaitMirrorEqualsTable(bin, "bin");
    }
  }

  private static void awaitAllEqual(
      Pipeline p, List<TableMirror<Map<String, Object>>> mirrors, String[] tables) {
    for (int i = 0; i < tables.length; i++) {
      p.awaitMirrorEqualsTable(mirrors.get(i), tables[i]);
    }
  }

  private static List<ChangeEvent<Map<String, Object>>> listen(TableMirror<Map<String, Object>> m) {
    List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    return events;
  }

  private static long triggerCount(Pipeline p, String table) throws SQLException {
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = '"
                    + p.db.schema()
                    + "' AND EVENT_OBJECT_TABLE = '"
                    + table
                    + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
