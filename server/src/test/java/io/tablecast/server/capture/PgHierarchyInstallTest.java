package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL install, verify and uninstall over partitioned tables and inheritance trees: every
 * relation under a cached table writes its changes under the cached table's name, a partition can
 * be cached on its own too, and every step is idempotent.
 */
class PgHierarchyInstallTest {

  private static final String[] SCHEMA = {
    "CREATE TABLE orders (id int NOT NULL, region text NOT NULL, PRIMARY KEY (id, region)) PARTITION BY LIST (region)",
    "CREATE TABLE orders_eu PARTITION OF orders FOR VALUES IN ('eu')",
    "CREATE TABLE orders_us PARTITION OF orders FOR VALUES IN ('us') PARTITION BY RANGE (id)",
    "CREATE TABLE orders_us_lo PARTITION OF orders_us FOR VALUES FROM (MINVALUE) TO (100)",
    "CREATE TABLE orders_other PARTITION OF orders DEFAULT",
    "CREATE TABLE measurements (id int PRIMARY KEY, v int)",
    "CREATE TABLE measurements_2023 (PRIMARY KEY (id)) INHERITS (measurements)",
    "CREATE TABLE measurements_2024 (extra text) INHERITS (measurements)",
    "CREATE TABLE measurements_2024_q4 () INHERITS (measurements_2024)"
  };

  private static SourceConfig config(TestDatabases.Isolated db, boolean install, String... tables) {
    return new SourceConfig(db.jdbcUrl(), null, null, List.of(tables), install, null, null);
  }

  @Test
  void everyPartitionAndChildWritesUnderTheCachedTablesNameAndInstallIsIdempotent()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("hier_install");
    db.execute(SCHEMA);
    SourceConfig config = config(db, true, "orders", "orders_eu", "measurements");
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.install();
      String script = installer.printSql();
      installer.install();
      installer.verifyInstalled();
      assertThat(installer.printSql()).isEqualTo(script);
    }
    Set<String> triggers = triggers(db);
    // a row trigger (cloned on partitions) and a TRUNCATE trigger on every relation, for each table
    // it belongs to
    for (String rel : List.of("orders", "orders_eu", "orders_us", "orders_us_lo", "orders_other")) {
      assertThat(triggers)
          .contains(
              rel + " row " + db.table("orders") + " A",
              rel + " truncate " + db.table("orders") + " A");
    }
    assertThat(triggers)
        .contains(
            "orders_eu row " + db.table("orders_eu") + " A",
            "orders_eu truncate " + db.table("orders_eu") + " A");
    for (String rel :
        List.of("measurements", "measurements_2023", "measurements_2024", "measurements_2024_q4")) {
      assertThat(triggers)
          .contains(
              rel + " row " + db.table("measurements") + " A",
              rel + " truncate " + db.table("measurements") + " A");
    }
    assertThat(triggers).hasSize(2 * 5 + 2 + 2 * 4);

    db.execute(
        "INSERT INTO orders VALUES (1, 'eu'), (2, 'us'), (3, 'mars')",
        "INSERT INTO orders_us_lo VALUES (4, 'us')",
        "INSERT INTO measurements_2024_q4 VALUES (1, 1, 'x')",
        "INSERT INTO measurements_2023 VALUES (2, 2)");
    assertThat(outbox(db))
        .containsExactly(
            db.table("measurements") + " I",
            db.table("measurements") + " I",
            db.table("orders") + " I",
            db.table("orders") + " I",
            db.table("orders") + " I",
            db.table("orders") + " I",
            db.table("orders_eu") + " I");

    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.uninstall();
      installer.uninstall();
    }
    assertThat(triggers(db)).isEmpty();
    db.execute(
        "INSERT INTO orders VALUES (5, 'eu')", "INSERT INTO measurements_2024 VALUES (6, 6)");
  }

  @Test
  void disabledOriginOnlyAndMissingTriggersAreRefusedAtStartAllTogetherAndInstallRepairsThem()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("hier_disabled");
    db.execute(SCHEMA);
    try (TriggerInstaller installer =
        TriggerInstaller.connect(config(db, true, "orders", "measurements"))) {
      installer.install();
    }
    String ordersRow = name(db, "orders", "orders", "row");
    String measurementsRow = name(db, "measurements_2023", "measurements", "row");
    String measurementsTruncate = name(db, "measurements_2024_q4", "measurements", "truncate");
    db.execute(
        "ALTER TABLE orders_us_lo DISABLE TRIGGER " + ordersRow, // a partition's clone
        "ALTER TABLE measurements_2023 ENABLE TRIGGER "
            + measurementsRow, // origin only: replica sessions bypass it
        "DROP TRIGGER " + measurementsTruncate + " ON measurements_2024_q4");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(config(db, false, "orders", "measurements"))) {
      installer.describe();
      assertThatThrownBy(installer::verifyInstalled)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(db.table("orders_us_lo"))
          .hasMessageContaining(ordersRow)
          .hasMessageContaining("disabled")
          .hasMessageContaining(
              "ALTER TABLE \"" + db.schema() + "\".\"orders_us_lo\" ENABLE ALWAYS TRIGGER")
          .hasMessageContaining(db.table("measurements_2023"))
          .hasMessageContaining(measurementsRow)
          .hasMessageContaining("session_replication_role")
          .hasMessageContaining(db.table("measurements_2024_q4"))
          .hasMessageContaining(measurementsTruncate)
          .hasMessageContaining("missing")
          .hasMessageContaining("tablecast install");
    }
    try (TriggerInstaller installer =
        TriggerInstaller.connect(config(db, true, "orders", "measurements"))) {
      installer.install();
      installer.verifyInstalled();
    }
    assertThat(triggers(db)).allMatch(t -> t.endsWith(" A")).hasSize(2 * 5 + 2 * 4);
  }

  @Test
  void triggersOfAFormerChildAndOfAnEarlierVersionAreDroppedAtInstall() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("hier_stray");
    db.execute(SCHEMA);
    SourceConfig config = config(db, true, "measurements");
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.install();
    }
    // a trigger as the previous version named it (no argument: it wrote TG_TABLE_NAME)
    db.execute(
        "CREATE TRIGGER tablecast_capture AFTER INSERT OR UPDATE OR DELETE ON measurements "
            + "FOR EACH ROW EXECUTE FUNCTION tablecast_capture()",
        "ALTER TABLE measurements_2023 NO INHERIT measurements");
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      assertThatThrownBy(installer::verifyInstalled)
          .hasMessageContaining(db.table("measurements_2023"))
          .hasMessageContaining("no longer");
      assertThat(installer.printSql())
          .contains("DROP TRIGGER IF EXISTS \"tablecast_capture\" ON")
          .containsPattern(
              "DROP TRIGGER IF EXISTS \"tablecast_capture_[0-9a-f]{8}\" ON \""
                  + db.schema()
                  + "\".\"measurements_2023\"");
      installer.install();
      installer.verifyInstalled();
    }
    Set<String> triggers = triggers(db);
    assertThat(triggers).noneMatch(t -> t.startsWith("measurements_2023 ")).hasSize(2 * 3);
    db.execute(
        "INSERT INTO measurements_2023 VALUES (1, 1)", "INSERT INTO measurements VALUES (2, 2)");
    assertThat(outbox(db)).containsExactly(db.table("measurements") + " I");
  }

  /** A foreign table's rows change on another server, where no trigger of this database fires. */
  @Test
  void aForeignTableChildIsRefusedNamingIt() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("hier_foreign");
    String wrapper = "tablecast_test_fdw_" + db.schema();
    db.execute(
        "CREATE TABLE places (id int PRIMARY KEY, name text)",
        "CREATE FOREIGN DATA WRAPPER " + wrapper,
        "CREATE SERVER " + wrapper + "_server FOREIGN DATA WRAPPER " + wrapper,
        "CREATE FOREIGN TABLE remote_places () INHERITS (places) SERVER " + wrapper + "_server");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, true, "places"))) {
      assertThatThrownBy(installer::describe)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(db.table("places"))
          .hasMessageContaining(db.table("remote_places"))
          .hasMessageContaining("foreign table");
    } finally {
      db.execute(
          "DROP FOREIGN TABLE remote_places",
          "DROP SERVER " + wrapper + "_server",
          "DROP FOREIGN DATA WRAPPER " + wrapper);
    }
  }

  /** Each trigger on the schema's tables: "relation row|truncate cachedTable tgenabled". */
  static Set<String> triggers(TestDatabases.Isolated db) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT c.relname, CASE WHEN t.tgtype & 32 <> 0 THEN 'truncate' ELSE 'row' END, t.tgargs, t.tgenabled "
                    + "FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = '\""
                    + db.schema()
                    + "\"'::regnamespace AND NOT t.tgisinternal")) {
      while (rs.next()) {
        String args = new String(rs.getBytes(3), java.nio.charset.StandardCharsets.UTF_8);
        String first = args.isEmpty() ? "(none)" : args.substring(0, args.indexOf('\0'));
        out.add(rs.getString(1) + " " + rs.getString(2) + " " + first + " " + rs.getString(4));
      }
    }
    return out;
  }

  /** The name of the row or truncate trigger on {@code relation} that captures {@code cached}. */
  private static String name(TestDatabases.Isolated db, String relation, String cached, String kind)
      throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                    + db.table(relation)
                    + "'::regclass AND position('"
                    + db.table(cached)
                    + "' IN encode(tgargs, 'escape')) = 1 AND (tgtype & 32 <> 0) = "
                    + kind.equals("truncate"))) {
      assertThat(rs.next()).as("%s trigger of %s on %s", kind, cached, relation).isTrue();
      return rs.getString(1);
    }
  }

  private static List<String> outbox(TestDatabases.Isolated db) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT table_name || ' ' || op FROM tablecast_outbox ORDER BY 1")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
