package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tail's statements that read changed rows by key are made once per table version and number of
 * keys, and are the statements {@link MysqlTriggers#rowsByKey} makes.
 */
class ChangedRowStatementsTest {
  private static final TableId PRICES = new TableId("app", "prices");

  private static TableSchema prices(ColumnInfo... more) {
    List<ColumnInfo> columns =
        new java.util.ArrayList<>(
            List.of(
                new ColumnInfo("sku", "varchar(20)", ColumnKind.STRING),
                new ColumnInfo("region", "int", ColumnKind.INTEGER),
                new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL)));
    columns.addAll(List.of(more));
    return new TableSchema(PRICES, columns, List.of("sku", "region"));
  }

  @Test
  void theReadWaitsASecondAtMostForTheTablesMetadataLockOnEitherFlavor() {
    assertThat(new ChangedRowStatements(MysqlFlavor.MYSQL).rowsByKey(prices(), 1))
        .as("MySQL 8 (never run here): the SET_VAR hint, lock_wait_timeout's minimum")
        .startsWith("SELECT /*+ SET_VAR(lock_wait_timeout = 1) */ t.`sku`, t.`region`, ");
    assertThat(new ChangedRowStatements(MysqlFlavor.MARIADB).rowsByKey(prices(), 1))
        .startsWith("SET STATEMENT lock_wait_timeout = 1 FOR SELECT t.`sku`, t.`region`, ");
    assertThatThrownBy(() -> MysqlFlavor.MARIADB.boundedLockWait("DELETE FROM t", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theStatementForEachNumberOfKeysIsTheOneTheTriggersModuleMakes() {
    TableSchema table = prices();
    ChangedRowStatements statements = new ChangedRowStatements(MysqlFlavor.MARIADB);
    for (int keys : new int[] {1, 2, 3, ChangedRowStatements.KEPT_SIZES, 33, 500}) {
      assertThat(statements.rowsByKey(table, keys))
          .isEqualTo(MysqlTriggers.rowsByKey(MysqlFlavor.MARIADB, table, keys));
    }
    assertThat(statements.rowsByKey(table, 2))
        .startsWith("SET STATEMENT lock_wait_timeout = 1 FOR SELECT ")
        .endsWith(" FROM `app`.`prices` t WHERE (t.`sku`, t.`region`) IN ((?, ?), (?, ?))");
    assertThat(statements.select(table))
        .isEqualTo(MysqlTriggers.rowSelect(MysqlFlavor.MARIADB, table));
  }

  @Test
  void aStatementIsMadeOnceAndKeptForTheNextReads() {
    TableSchema table = prices();
    ChangedRowStatements statements = new ChangedRowStatements(MysqlFlavor.MARIADB);
    String three = statements.rowsByKey(table, 3);
    assertThat(statements.rowsByKey(table, 3)).isSameAs(three);
    assertThat(statements.select(table)).isSameAs(statements.select(table));
    // an equal description of the table (another plan of the same version) reads the same way
    assertThat(statements.rowsByKey(prices(), 3)).isEqualTo(three);
  }

  @Test
  void anotherVersionOfTheTableGetsStatementsOfItsOwn() {
    ChangedRowStatements statements = new ChangedRowStatements(MysqlFlavor.MARIADB);
    TableSchema before = prices();
    String old = statements.rowsByKey(before, 3);
    assertThat(old).doesNotContain("`currency`");
    TableSchema after = prices(new ColumnInfo("currency", "char(3)", ColumnKind.STRING));
    String now = statements.rowsByKey(after, 3);
    assertThat(now)
        .contains("t.`currency`")
        .isEqualTo(MysqlTriggers.rowsByKey(MysqlFlavor.MARIADB, after, 3));
    assertThat(statements.select(after).list()).contains("`currency`");
  }
}
