package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A reference table reloaded the way many teams do it, and the way online schema change tools
 * (gh-ost, pt-online-schema-change) end: a new table is built beside the cached one and swapped in
 * by renaming, the old one renamed away and dropped later. The cached name now names another table:
 * the mirrors must show it, follow its changes, and never show changes to the table renamed away.
 */
class TableSwapTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableSwappedInByRenameIsWhatMirrorsShowAndFollow(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE rates (id int PRIMARY KEY, name varchar(20))",
            "INSERT INTO rates VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    try (Pipeline p = Pipeline.start(kind, "swap", ddl, "rates")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("swap"), "rates");
      String rates = p.db.table("rates");
      String ratesNew = p.db.table("rates_new");
      String ratesOld = p.db.table("rates_old");
      p.sql(
          "CREATE TABLE " + ratesNew + " (id int PRIMARY KEY, name varchar(20))",
          "INSERT INTO " + ratesNew + " VALUES (1, 'a'), (2, 'B'), (4, 'd')");
      if (kind == Kind.POSTGRESQL) {
        p.transaction(
            "ALTER TABLE " + rates + " RENAME TO rates_old",
            "ALTER TABLE " + ratesNew + " RENAME TO rates");
      } else {
        p.sql("RENAME TABLE " + rates + " TO " + ratesOld + ", " + ratesNew + " TO " + rates);
      }
      p.allowRepairs(
          3); // the swapped-in table's rows, should a reconciliation pass find them first
      p.awaitMirrorEqualsTable(m, "rates");
      // changes to the table swapped in are followed; changes to the one renamed away are not
      p.sql(
          "UPDATE " + rates + " SET name = 'x' WHERE id = 1",
          "INSERT INTO " + rates + " VALUES (5, 'e')");
      p.sql(
          "UPDATE " + ratesOld + " SET name = 'old' WHERE id = 3",
          "INSERT INTO " + ratesOld + " VALUES (9, 'old')");
      p.sql("INSERT INTO " + rates + " VALUES (6, 'f')");
      p.awaitMirrorEqualsTable(m, "rates");
      assertThat(m.get(5)).containsEntry("name", "e");
      assertThat(m.get(9)).isNull();
    }
  }
}
