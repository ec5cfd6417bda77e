package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capture check describes again only a table whose catalog rows changed since it last matched
 * its description: every kind of ALTER TABLE that changes a description must change them, in the
 * database itself; what leaves the description as it is (rows written, a rebuild, a non-unique
 * index, another table) must not, or the check would describe every table every time.
 */
class CatalogFingerprintsTest {

  private static final String CREATE =
      "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), code VARCHAR(5) NOT NULL, doc LONGTEXT)";

  @Test
  void everyAlterThatChangesADescriptionIsSeen() throws Exception {
    List<String> alters =
        List.of(
            "ALTER TABLE t ADD COLUMN extra INT",
            "ALTER TABLE t DROP COLUMN doc",
            "ALTER TABLE t MODIFY name VARCHAR(30)",
            "ALTER TABLE t MODIFY name TEXT",
            "ALTER TABLE t RENAME COLUMN name TO title",
            "ALTER TABLE t MODIFY doc LONGTEXT FIRST",
            "ALTER TABLE t ADD CONSTRAINT doc_json CHECK (json_valid(doc))",
            "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (id, code)",
            "ALTER TABLE t DROP PRIMARY KEY, ADD UNIQUE (code)",
            "ALTER TABLE t ADD COLUMN total INT AS (id * 2) PERSISTENT",
            "ALTER TABLE t ENGINE = Aria",
            "ALTER TABLE t ADD SYSTEM VERSIONING",
            "DROP TABLE t");
    for (String alter : alters) {
      TestDatabases.Isolated db = Kind.MYSQL.isolated("fingerprints");
      db.execute(CREATE);
      TableId id = new TableId(db.schema(), "t");
      CatalogFingerprints fingerprints = new CatalogFingerprints();
      TableSchema known = schema(id);
      try (Connection c = db.connect()) {
        fingerprints.look(c, List.of(id));
        fingerprints.matched(known);
        fingerprints.look(c, List.of(id));
        assertThat(fingerprints.unchanged(known)).as("nothing changed before: " + alter).isTrue();
        db.execute(alter);
        fingerprints.look(c, List.of(id));
        assertThat(fingerprints.unchanged(known)).as(alter).isFalse();
      }
    }
  }

  @Test
  void whatLeavesTheDescriptionAsItIsIsNotTakenForAChange() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fingerprints");
    db.execute(CREATE, "CREATE TABLE other (id INT PRIMARY KEY)");
    TableId id = new TableId(db.schema(), "t");
    TableSchema known = schema(id);
    CatalogFingerprints fingerprints = new CatalogFingerprints();
    try (Connection c = db.connect()) {
      fingerprints.look(c, List.of(id));
      assertThat(fingerprints.unchanged(known)).as("never matched yet").isFalse();
      fingerprints.matched(known);
      db.execute(
          "INSERT INTO t VALUES (1, 'a', 'x', '{}')",
          "OPTIMIZE TABLE t",
          "CREATE INDEX by_name ON t (name)",
          "ALTER TABLE other ADD COLUMN more INT");
      fingerprints.look(c, List.of(id));
      assertThat(fingerprints.unchanged(known)).isTrue();
      assertThat(fingerprints.unchanged(schema(new TableId(db.schema(), "other"))))
          .as("a table whose rows were never matched")
          .isFalse();
      // a description that differs from the plan's is looked at again, whatever the catalog says
      fingerprints.differs(id);
      assertThat(fingerprints.unchanged(known)).isFalse();
      fingerprints.matched(known);
      TableSchema other = new TableSchema(id, List.of(), List.of("id", "code"));
      assertThat(fingerprints.unchanged(other)).as("another description of the table").isFalse();
    }
  }

  /**
   * MariaDB reads a whole schema's catalog by opening every table of it: five tables cached of a
   * large schema are looked at table by table, as before the check read schemas whole.
   */
  @Test
  void aFewTablesOfALargeSchemaAreLookedAtTableByTable() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("fingerprints");
    int tables = 3 * SchemaReads.TABLES_PER_CACHED_TABLE;
    for (int i = 0; i < tables; i++) {
      db.execute("CREATE TABLE t" + i + " (id INT PRIMARY KEY)");
    }
    TableId one = new TableId(db.schema(), "t0");
    List<TableId> three =
        List.of(one, new TableId(db.schema(), "t1"), new TableId(db.schema(), "t2"));
    try (Connection c = db.connect()) {
      assertThat(SchemaReads.readWhole(c, List.of(one))).isEmpty();
      assertThat(SchemaReads.readWhole(c, three)).containsExactly(db.schema());
      CatalogFingerprints fingerprints = new CatalogFingerprints();
      fingerprints.look(c, List.of(one));
      fingerprints.matched(schema(one));
      fingerprints.look(c, List.of(one));
      assertThat(fingerprints.unchanged(schema(one))).as("never read, so described").isFalse();
      fingerprints.look(c, three);
      fingerprints.matched(schema(one));
      fingerprints.look(c, three);
      assertThat(fingerprints.unchanged(schema(one))).isTrue();
    }
  }

  private static TableSchema schema(TableId id) {
    return new TableSchema(id, List.of(), List.of("id"));
  }
}
