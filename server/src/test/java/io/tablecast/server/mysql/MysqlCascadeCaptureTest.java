package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB foreign-key actions: the parents' key-recording triggers are installed (on cached
 * and uncached parents alike), verified, reported by the capture status, replaced when the foreign
 * keys change and removed by uninstall; they record the keys of every cascaded row and nothing for
 * a change that cascades nowhere. End to end through the server: {@code MysqlCascadeTest}.
 */
class MysqlCascadeCaptureTest {

  private static SourceConfig config(TestDatabases.Isolated db, String... tables) {
    return new SourceConfig(db.jdbcUrl(), null, null, List.of(tables), true, null, null);
  }

  /**
   * The database behaviour the trigger timings rely on (docs/GUARANTEES.md, MysqlCascadeTriggers).
   */
  @Test
  void parentTriggersSeeCascadedChildrenBeforeADeleteAndAfterAnUpdate() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_timing");
    db.execute(
        "CREATE TABLE seen (id INT AUTO_INCREMENT PRIMARY KEY, moment VARCHAR(20), child INT, "
            + "grandchild INT, child_parent INT)",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id) "
            + "ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE g (id INT PRIMARY KEY, c_id INT, FOREIGN KEY (c_id) REFERENCES c (id) ON DELETE CASCADE)",
        "INSERT INTO p VALUES (1), (2)",
        "INSERT INTO c VALUES (10, 1), (20, 2)",
        "INSERT INTO g VALUES (100, 10)",
        seenTrigger("BEFORE", "DELETE", "OLD"),
        seenTrigger("AFTER", "DELETE", "OLD"),
        seenTrigger("BEFORE", "UPDATE", "OLD"),
        seenTrigger("AFTER", "UPDATE", "NEW"),
        "DELETE FROM p WHERE id = 1",
        "UPDATE p SET id = 5 WHERE id = 2");
    assertThat(
            strings(
                db,
                "SELECT CONCAT(moment, ' ', COALESCE(child, '-'), ' ', COALESCE(grandchild, '-'), ' ', "
                    + "COALESCE(child_parent, '-')) FROM seen ORDER BY id"))
        .containsExactly(
            "BEFORE DELETE 10 100 1", // children and grandchildren still there
            "BEFORE UPDATE 20 - 2", // the child still references the old key
            "AFTER UPDATE 20 - 5"); // AFTER DELETE saw no child; AFTER UPDATE sees it updated
  }

  @Test
  void installPutsKeyRecordingTriggersOnCachedAndUncachedParentsAndVerifyAcceptsThem()
      throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_install");
    db.execute(
        "CREATE TABLE grand (id INT PRIMARY KEY)",
        "CREATE TABLE parent (id INT PRIMARY KEY, grand_id INT, CONSTRAINT fk_parent_grand FOREIGN KEY (grand_id) "
            + "REFERENCES grand (id) ON DELETE CASCADE)",
        "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) "
            + "REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "parent", "child"))) {
      String script = installer.printSql();
      assertThat(script)
          .contains("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,") // triggers keep the mode
          .contains("BEFORE DELETE ON `" + db.schema() + "`.`grand`")
          .contains("BEFORE DELETE ON `" + db.schema() + "`.`parent`")
          .contains("BEFORE UPDATE ON `" + db.schema() + "`.`parent`");
      installer.install();
      installer.install();
      installer.verifyInstalled();
      assertThat(installer.printSql()).isEqualTo(script);
    }
    assertThat(triggers(db, "grand")) // one for each cached table its deletes reach
        .hasSize(2)
        .allSatisfy(name -> assertThat(name).matches("tablecast_grand_cd_[0-9a-f]{8}"));
    assertThat(triggers(db, "parent")).hasSize(5); // its own three, and cd, cn for its child
    assertThat(triggers(db, "child")).hasSize(3);
    try (Connection c = db.connect()) {
      // each parent's trigger is owned by the table it records, as a table's own triggers are
      assertThat(
              MysqlCatalogQueries.installedTriggers(c, "`" + db.schema() + "`.`tablecast_outbox`")
                  .stream()
                  .filter(t -> MysqlCascadeTriggers.isKeyRecording(t.name()))
                  .map(t -> t.table().name() + " records " + t.owner().name())
                  .toList())
          .containsExactlyInAnyOrder(
              "grand records parent",
              "grand records child",
              "parent records child",
              "parent records child");
    }
  }

  @Test
  void triggersRecordTheKeysOfEveryCascadedRowAndNothingWhenNothingCascades() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_record");
    db.execute(
        "CREATE TABLE a (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE b (a_id INT NOT NULL, no INT NOT NULL, PRIMARY KEY (a_id, no), CONSTRAINT fk_b_a "
            + "FOREIGN KEY (a_id) REFERENCES a (id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE c (a_id INT NOT NULL, b_no INT NOT NULL, no INT NOT NULL, PRIMARY KEY (a_id, b_no, no), "
            + "CONSTRAINT fk_c_b FOREIGN KEY (a_id, b_no) REFERENCES b (a_id, no) ON DELETE CASCADE ON UPDATE CASCADE)",
        "INSERT INTO a VALUES (1, 0), (2, 0), (3, 0)",
        "INSERT INTO b VALUES (1, 1), (1, 2), (2, 1)",
        "INSERT INTO c VALUES (1, 1, 1), (1, 2, 1), (2, 1, 1)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "b", "c"))) {
      installer.install(); // a is not cached: it gets only the key-recording triggers
    }
    db.execute("UPDATE a SET v = 1", "DELETE FROM a WHERE id = 3"); // no key change, no children
    assertThat(outbox(db)).isEmpty();

    db.execute("UPDATE a SET id = 7 WHERE id = 1"); // re-keys two b rows and two c rows
    assertThat(outbox(db))
        .containsExactlyInAnyOrder(
            "b U {\"a_id\": 7, \"no\": 1} {\"a_id\": 1, \"no\": 1}",
            "b U {\"a_id\": 7, \"no\": 2} {\"a_id\": 1, \"no\": 2}",
            "c U {\"a_id\": 7, \"b_no\": 1, \"no\": 1} {\"a_id\": 1, \"b_no\": 1, \"no\": 1}",
            "c U {\"a_id\": 7, \"b_no\": 2, \"no\": 1} {\"a_id\": 1, \"b_no\": 2, \"no\": 1}");
    db.execute("DELETE FROM tablecast_outbox", "DELETE FROM a WHERE id = 2");
    assertThat(outbox(db))
        .containsExactlyInAnyOrder(
            "b D - {\"a_id\": 2, \"no\": 1}", "c D - {\"a_id\": 2, \"b_no\": 1, \"no\": 1}");
  }

  @Test
  void verifyNamesAMissingParentTriggerItsForeignKeyAndTheCachedTable() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_verify");
    db.execute(
        "CREATE TABLE parent (id INT PRIMARY KEY)",
        "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) "
            + "REFERENCES parent (id) ON DELETE CASCADE)");
    SourceConfig config = config(db, "child");
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.install();
    }
    String trigger = triggers(db, "parent").get(0);
    db.execute("DROP TRIGGER " + trigger);
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      assertThatThrownBy(installer::verifyInstalled)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(trigger)
          .hasMessageContaining(db.schema() + ".parent")
          .hasMessageContaining("fk_child_parent")
          .hasMessageContaining(db.schema() + ".child");
      CaptureStatus status = captureStatus(installer.plan(), db);
      assertThat(status.missing())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.cachedTable()).isEqualTo(new TableId(db.schema(), "child"));
                assertThat(t.on()).isEqualTo(new TableId(db.schema(), "parent"));
                assertThat(t.foreignKeys()).containsExactly("fk_child_parent");
              });
      assertThat(status.required())
          .filteredOn(t -> !t.recordsCascades())
          .hasSize(3)
          .allSatisfy(t -> assertThat(t.presence()).isEqualTo(RequiredTrigger.Presence.PRESENT));
      installer.install();
      installer.verifyInstalled();
      assertThat(captureStatus(installer.plan(), db).missing()).isEmpty();
    }
  }

  @Test
  void changedForeignKeysReplaceTheParentTriggersAndUninstallRemovesThem() throws Exception {
    TestDatabases.Isolated db =
        Kind.MYSQL.isolated("fk_replace"); // alone: uninstall drops the outbox
    db.execute(
        "CREATE TABLE parent (id INT PRIMARY KEY)",
        "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) "
            + "REFERENCES parent (id) ON DELETE CASCADE)",
        "CREATE TABLE other (id INT PRIMARY KEY, parent_id INT, CONSTRAINT fk_other_parent FOREIGN KEY (parent_id) "
            + "REFERENCES parent (id) ON DELETE CASCADE)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "child", "other"))) {
      installer.install();
    }
    List<String> before = triggers(db, "parent");
    assertThat(before).hasSize(2); // one for each cached table its deletes reach
    db.execute(
        "ALTER TABLE child DROP FOREIGN KEY fk_child_parent",
        "ALTER TABLE child ADD CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) REFERENCES"
            + " parent (id) ON DELETE SET NULL");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "child", "other"))) {
      assertThatThrownBy(installer::verifyInstalled).hasMessageContaining("fk_child_parent");
      installer.install(); // the new body for child first, then the drop of the stale one
      installer.verifyInstalled();
    }
    List<String> replaced = triggers(db, "parent");
    assertThat(replaced).hasSize(2).containsAnyElementsOf(before); // other's is unchanged
    assertThat(replaced).filteredOn(before::contains).hasSize(1);
    db.execute("ALTER TABLE child DROP FOREIGN KEY fk_child_parent");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "child", "other"))) {
      installer.verifyInstalled(); // nothing is missing: child's trigger is only needless now
      installer.install(); // and dropped
    }
    assertThat(triggers(db, "parent")).hasSize(1).isSubsetOf(before);
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "child"))) {
      // other left this configuration: install never removes what another server may read
      installer.install();
    }
    assertThat(triggers(db, "parent")).hasSize(1);
    assertThat(triggers(db, "other")).hasSize(3);
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "child", "other"))) {
      installer.install();
      assertThat(triggers(db, "parent")).hasSize(1);
      // other's capture: its own triggers and the parent's that records its cascaded rows
      installer.uninstall(java.util.Set.of("other"), false);
      assertThat(triggers(db, "parent")).isEmpty();
      assertThat(triggers(db, "other")).isEmpty();
      installer.install();
      installer.uninstall();
    }
    assertThat(triggers(db, "parent")).isEmpty();
    // writes work without capture: no trigger left writing to the dropped outbox
    db.execute("DELETE FROM parent");
  }

  @Test
  void cascadesCyclingThroughSeveralTablesAreRecordedLevelByLevel() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_cycle");
    db.execute(
        "CREATE TABLE x (id INT PRIMARY KEY, y_id INT)",
        "CREATE TABLE y (id INT PRIMARY KEY, x_id INT, CONSTRAINT fk_y_x FOREIGN KEY (x_id) REFERENCES x (id) "
            + "ON DELETE CASCADE)",
        "ALTER TABLE x ADD CONSTRAINT fk_x_y FOREIGN KEY (y_id) REFERENCES y (id) ON DELETE CASCADE",
        // x1 <- y1 <- x2 <- y2 <- x3
        "INSERT INTO x VALUES (1, NULL)",
        "INSERT INTO y VALUES (1, 1)",
        "INSERT INTO x VALUES (2, 1)",
        "INSERT INTO y VALUES (2, 2)",
        "INSERT INTO x VALUES (3, 2)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "x", "y"))) {
      installer.install();
      installer.verifyInstalled();
    }
    db.execute("DELETE FROM tablecast_outbox", "DELETE FROM x WHERE id = 1");
    assertThat(
            strings(
                db,
                "SELECT CONCAT(SUBSTRING_INDEX(table_name, '.', -1), ' ', op, ' ', COALESCE(old_key, '-')) "
                    + "FROM tablecast_outbox WHERE op = 'D' ORDER BY id"))
        .containsExactlyInAnyOrder(
            "x D {\"id\": 1}",
            "y D {\"id\": 1}",
            "x D {\"id\": 2}",
            "y D {\"id\": 2}",
            "x D {\"id\": 3}");
  }

  @Test
  void moreCascadePathsThanOneTriggerHoldsAreRefusedNamingTheParent() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_paths");
    List<String> ddl = new ArrayList<>(List.of("CREATE TABLE t0 (id INT PRIMARY KEY)"));
    for (int i = 1; i <= 7; i++) { // two keys per level: 2^7 paths from t0 to t7
      ddl.add(
          "CREATE TABLE t"
              + i
              + " (id INT PRIMARY KEY, a INT, b INT, CONSTRAINT fk_t"
              + i
              + "_a FOREIGN KEY (a) "
              + "REFERENCES t"
              + (i - 1)
              + " (id) ON DELETE CASCADE, CONSTRAINT fk_t"
              + i
              + "_b FOREIGN KEY (b) "
              + "REFERENCES t"
              + (i - 1)
              + " (id) ON DELETE CASCADE)");
    }
    db.execute(ddl.toArray(new String[0]));
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "t7"))) {
      assertThatThrownBy(installer::install)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(db.schema() + ".t0")
          .hasMessageContaining("more than " + CascadePaths.MAX_PATHS)
          .hasMessageContaining("RESTRICT");
    }
    assertThat(triggers(db, "t7")).isEmpty();
  }

  /**
   * Why SET DEFAULT needs no capture: InnoDB never performs it (MariaDB stores RESTRICT; MySQL
   * refuses it).
   */
  @Test
  void innodbNeverPerformsSetDefault() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fk_default");
    db.execute("CREATE TABLE parent (id INT PRIMARY KEY)", "INSERT INTO parent VALUES (1)");
    boolean created;
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT DEFAULT 1, CONSTRAINT fk_default "
              + "FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE SET DEFAULT ON UPDATE SET DEFAULT)");
      created = true;
    } catch (SQLException refused) {
      created = false; // MySQL 8: InnoDB refuses the definition
    }
    if (created) { // MariaDB: accepted, stored and enforced as RESTRICT
      assertThat(
              strings(
                  db,
                  "SELECT CONCAT(DELETE_RULE, ' ', UPDATE_RULE) FROM information_schema."
                      + "REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = '"
                      + db.schema()
                      + "'"))
          .containsExactly("RESTRICT RESTRICT");
      db.execute("INSERT INTO child VALUES (1, 1)");
      assertThatThrownBy(() -> db.execute("DELETE FROM parent"))
          .hasMessageContaining("foreign key constraint fails");
    }
  }

  private static String seenTrigger(String timing, String event, String row) {
    return "CREATE TRIGGER seen_"
        + timing.toLowerCase()
        + "_"
        + event.toLowerCase()
        + " "
        + timing
        + " "
        + event
        + " ON p FOR EACH ROW INSERT INTO seen (moment, child, grandchild, child_parent) SELECT '"
        + timing
        + " "
        + event
        + "', c.id, g.id, c.p_id FROM c LEFT JOIN g ON g.c_id = c.id WHERE c.p_id = "
        + row
        + ".id";
  }

  /** The outbox as "table op new_key old_key", table unqualified, "-" for NULL. */
  private static List<String> outbox(TestDatabases.Isolated db) throws SQLException {
    return strings(
        db,
        "SELECT CONCAT(SUBSTRING_INDEX(table_name, '.', -1), ' ', op, ' ', COALESCE(new_key, '-'), "
            + "' ', COALESCE(old_key, '-')) FROM tablecast_outbox ORDER BY id");
  }

  private static List<String> triggers(TestDatabases.Isolated db, String table)
      throws SQLException {
    return strings(
        db,
        "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = '"
            + db.schema()
            + "' AND EVENT_OBJECT_TABLE = '"
            + table
            + "' AND TRIGGER_NAME LIKE 'tablecast\\_%'");
  }

  private static List<String> strings(TestDatabases.Isolated db, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** The MySQL family's capture check of the plan's tables, on a connection of its own. */
  private static CaptureStatus captureStatus(CapturePlan plan, TestDatabases.Isolated db)
      throws Exception {
    try (Connection c = db.connect()) {
      return ((MysqlDialect) plan.dialect()).captureStatus(c, plan.installation(), plan.tables());
    }
  }
}
