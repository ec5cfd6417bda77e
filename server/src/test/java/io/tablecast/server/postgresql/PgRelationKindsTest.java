package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.InaccessibleTableException;
import io.tablecast.server.capture.MissingTableException;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code cached_tables} may name on PostgreSQL that {@code information_schema.tables} does not
 * list. A materialized view, a sequence or an index was refused as "does not exist", and so was a
 * table the server's user has no privilege on: the user was sent looking for a typo. Each is now
 * refused as what it is, with the way out.
 */
class PgRelationKindsTest {
  private static final TestDatabases.Isolated DB =
      TestDatabases.Kind.POSTGRESQL.isolated("relation_kinds");
  private static final String ROLE = "tc_no_privilege_" + ProcessHandle.current().pid();

  @BeforeAll
  static void schema() {
    DB.execute(
        "CREATE TABLE items (id int PRIMARY KEY, name text)",
        "CREATE MATERIALIZED VIEW item_names AS SELECT id, name FROM items",
        "CREATE SEQUENCE item_ids",
        "CREATE INDEX items_by_name ON items (name)",
        "CREATE TABLE \"Secret Items\" (id int PRIMARY KEY)",
        "DROP ROLE IF EXISTS " + ROLE,
        "CREATE ROLE " + ROLE + " LOGIN",
        "GRANT USAGE ON SCHEMA " + DB.schema() + " TO " + ROLE,
        "GRANT SELECT ON items TO " + ROLE);
  }

  @AfterAll
  static void dropRole() {
    DB.execute("DROP OWNED BY " + ROLE, "DROP ROLE " + ROLE);
  }

  private static void check(Connection c, String table) throws Exception {
    PgCatalogQueries.checkTable(c, new TableId(DB.schema(), table));
  }

  @Test
  void aMaterializedViewASequenceAndAnIndexAreRefusedAsWhatTheyAre() throws Exception {
    try (Connection c = DB.connect()) {
      assertThatCode(() -> check(c, "items")).doesNotThrowAnyException();
      assertThatThrownBy(() -> check(c, "item_names"))
          .isNotInstanceOf(MissingTableException.class)
          .hasMessageContaining("item_names is a MATERIALIZED VIEW")
          .hasMessageContaining("cache the tables it reads");
      assertThatThrownBy(() -> check(c, "item_ids"))
          .isNotInstanceOf(MissingTableException.class)
          .hasMessageContaining("item_ids is a SEQUENCE");
      assertThatThrownBy(() -> check(c, "items_by_name"))
          .isNotInstanceOf(MissingTableException.class)
          .hasMessageContaining("items_by_name is an INDEX")
          .hasMessageContaining("cache the table it indexes");
      assertThatThrownBy(() -> check(c, "no_such_table"))
          .isExactlyInstanceOf(MissingTableException.class)
          .hasMessageContaining("no_such_table does not exist");
    }
  }

  @Test
  void aTableTheUserHasNoPrivilegeOnIsRefusedWithTheGrantItNeeds() throws Exception {
    String url = DB.jdbcUrl().replaceFirst("user=[^&]*", "user=" + ROLE);
    try (Connection c = DriverManager.getConnection(url)) {
      assertThatCode(() -> check(c, "items")).doesNotThrowAnyException();
      assertThatThrownBy(() -> check(c, "Secret Items"))
          .isInstanceOf(InaccessibleTableException.class)
          .hasMessageContaining(
              "Secret Items exists, but " + ROLE + ", the user this configuration connects as")
          .hasMessageContaining(
              "GRANT SELECT ON \"" + DB.schema() + "\".\"Secret Items\" TO " + ROLE);
      // a materialized view the user may not read is still told as one
      assertThatThrownBy(() -> check(c, "item_names"))
          .hasMessageContaining("is a MATERIALIZED VIEW");
    }
  }
}
