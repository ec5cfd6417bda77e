package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.client.TableMirror;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tables without a primary key but with a unique index on NOT NULL columns, as legacy schemas have
 * them (a code column declared UNIQUE NOT NULL): cached by that index. An index that may hold
 * NULLs, a prefix index or a partial one cannot key rows; a table with only such indexes is
 * refused, naming both ways out.
 */
class UniqueKeyTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableWithoutPrimaryKeyIsCachedByItsUniqueIndexOnNotNullColumns(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE currencies (code varchar(3) NOT NULL, region varchar(10) NOT NULL, "
                + "name varchar(40), alias varchar(10), "
                + "UNIQUE (alias), UNIQUE (region, code), UNIQUE (code))",
            "INSERT INTO currencies VALUES ('EUR', 'eu', 'euro', 'e'), ('USD', 'us', 'dollar', NULL),"
                + " ('JPY', 'jp', 'yen', NULL)");
    try (Pipeline p = Pipeline.start(kind, "uniquekey", ddl, "currencies")) {
      p.allowRepairs(4); // the new key's rows, should a reconciliation pass meet them first
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("unique"), "currencies");
      assertThat(m.primaryKey())
          .as("the one-column unique index of NOT NULL columns")
          .containsExactly("code");
      assertThat(m.get("USD")).containsEntry("name", "dollar");

      p.sql(
          "INSERT INTO currencies VALUES ('GBP', 'uk', 'pound', 'p')",
          "UPDATE currencies SET name = 'US dollar' WHERE code = 'USD'",
          "UPDATE currencies SET code = 'JPN' WHERE code = 'JPY'", // the key itself changes
          "DELETE FROM currencies WHERE code = 'EUR'");
      p.awaitMirrorEqualsTable(m, "currencies");
      assertThat(m.get("JPY")).isNull();
      assertThat(m.get("JPN")).containsEntry("name", "yen");
      assertThat(m.get("USD")).containsEntry("name", "US dollar");

      // a primary key added later keys the mirror from then on
      p.sql("ALTER TABLE currencies ADD PRIMARY KEY (region, code)");
      org.awaitility.Awaitility.await()
          .atMost(Pipeline.READY)
          .until(() -> m.primaryKey().equals(List.of("region", "code")));
      p.sql("UPDATE currencies SET name = 'pound sterling' WHERE code = 'GBP'");
      p.awaitMirrorEqualsTable(m, "currencies");
      assertThat(m.get("uk", "GBP")).containsEntry("name", "pound sterling");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableWhoseUniqueIndexesMayHoldNullsIsRefusedNamingTheWaysOut(Kind kind) {
    List<String> ddl =
        List.of("CREATE TABLE notes (id int, body varchar(40), UNIQUE (id), UNIQUE (body))");
    try (Pipeline p = Pipeline.create(kind, "nullunique", ddl, "notes");
        TriggerInstaller installer = TriggerInstaller.connect(p.sourceConfig())) {
      assertThatThrownBy(installer::describe)
          .hasMessageContaining(p.db.table("notes"))
          .hasMessageContaining("has no primary key and no unique index on NOT NULL columns")
          .hasMessageContaining("add a PRIMARY KEY (or such a UNIQUE index)");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
