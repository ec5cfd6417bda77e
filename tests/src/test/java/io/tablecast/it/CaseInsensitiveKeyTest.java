package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Text keys under a collation that calls different texts equal: MySQL/MariaDB's default collations
 * ignore case, accents and trailing spaces, and a PostgreSQL nondeterministic ICU collation ignores
 * case. The database then holds one row where the texts differ only so, and a change of the key's
 * case, accents or trailing spaces moves the row to another text: mirrors key rows by the exact
 * text, so they must show the row under its new text only, never both.
 */
class CaseInsensitiveKeyTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKeyChangedOnlyInCaseAccentsOrTrailingSpacesMovesTheMirrorsRow(Kind kind) {
    List<String> ddl =
        kind == Kind.POSTGRESQL
            ? List.of(
                "CREATE COLLATION IF NOT EXISTS tc_ci (provider = icu, locale = 'und-u-ks-level2',"
                    + " deterministic = false)",
                "CREATE TABLE codes (code varchar(20) COLLATE tc_ci PRIMARY KEY, name varchar(20))",
                "INSERT INTO codes VALUES ('abc', 'a'), ('x', 'x'), ('e', 'e'), ('Q', 'q')")
            : List.of(
                "CREATE TABLE codes (code varchar(20) PRIMARY KEY, name varchar(20))"
                    + " COLLATE utf8mb4_general_ci",
                "INSERT INTO codes VALUES ('abc', 'a'), ('x', 'x'), ('e', 'e'), ('Q', 'q')");
    try (Pipeline p = Pipeline.start(kind, "ci_key", ddl, "codes")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("ci"), "codes");
      String codes = p.db.table("codes");
      p.sql("UPDATE " + codes + " SET code = 'ABC' WHERE code = 'abc'");
      p.awaitMirrorEqualsTable(m, "codes");
      assertThat(m.get("abc")).isNull();

      p.transaction(
          "DELETE FROM " + codes + " WHERE code = 'ABC'",
          "INSERT INTO " + codes + " VALUES ('abC', 'b')");
      p.awaitMirrorEqualsTable(m, "codes");

      p.sql(
          "UPDATE " + codes + " SET code = 'X', name = 'X' WHERE code = 'x'",
          "UPDATE " + codes + " SET name = 'q2' WHERE code = 'q'");
      p.awaitMirrorEqualsTable(m, "codes");
      if (kind != Kind.POSTGRESQL) {
        // MariaDB's general_ci ignores accents and trailing spaces (PAD SPACE) as well
        p.sql(
            "UPDATE " + codes + " SET code = 'é' WHERE code = 'e'",
            "UPDATE " + codes + " SET code = 'X  ' WHERE code = 'X'",
            "INSERT INTO " + codes + " VALUES ('q', 'dup') ON DUPLICATE KEY UPDATE name = 'dup'",
            "REPLACE INTO " + codes + " VALUES ('ABC', 'replaced')");
        p.awaitMirrorEqualsTable(m, "codes");
      }
      assertThat(m.size()).isEqualTo(4);
    }
  }
}
