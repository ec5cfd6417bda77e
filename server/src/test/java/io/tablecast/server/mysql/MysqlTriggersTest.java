package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.InstalledTrigger;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The MySQL/MariaDB trigger SQL, generated without a database (its hostile identifiers against real
 * databases: {@code capture/HostileIdentifierTest}).
 */
class MysqlTriggersTest {

  @Test
  void placeholdersInsideValuesAreNotExpandedAgain() {
    // key columns named like the template's placeholders: the MySQL triggers record the key
    TableSchema table =
        new TableSchema(
            new TableId("app", "t"),
            List.of(
                new ColumnInfo("id", "int", ColumnKind.INTEGER),
                new ColumnInfo("${old_key}", "varchar(10)", ColumnKind.STRING),
                new ColumnInfo("${new_key}", "varchar(10)", ColumnKind.STRING),
                new ColumnInfo("@@NAME@@", "varchar(10)", ColumnKind.STRING)),
            List.of("id", "${old_key}", "${new_key}", "@@NAME@@"));
    List<MysqlTriggers.Trigger> triggers =
        MysqlTriggers.triggers(table, "`app`.`tablecast_outbox`");
    String update = triggers.get(1).sql();
    assertThat(update)
        .contains(
            "JSON_OBJECT('id', NEW.`id`, '${old_key}', NEW.`${old_key}`, "
                + "'${new_key}', NEW.`${new_key}`, '@@NAME@@', NEW.`@@NAME@@`), "
                + "JSON_OBJECT('id', OLD.`id`, '${old_key}', OLD.`${old_key}`, '${new_key}', OLD.`${new_key}`, "
                + "'@@NAME@@', OLD.`@@NAME@@`))");
    assertThat(update)
        .startsWith(
            "CREATE TRIGGER IF NOT EXISTS `app`.`" + triggers.get(1).name() + "` AFTER UPDATE");
  }

  @Test
  void aTriggerPresentOnItsTableIsNotCreatedAgainButOneRenamedAwayWithAnotherTableIs() {
    TableSchema table =
        new TableSchema(
            new TableId("app", "rates"),
            List.of(new ColumnInfo("id", "int", ColumnKind.INTEGER)),
            List.of("id"));
    List<MysqlTriggers.Trigger> triggers =
        MysqlTriggers.triggers(table, "`app`.`tablecast_outbox`");
    List<String> script = triggers.stream().map(MysqlTriggers.Trigger::sql).toList();
    MysqlDialect dialect = new MysqlDialect(MysqlFlavor.MARIADB);
    TableId rates = new TableId("app", "rates");
    TableId ratesOld = new TableId("app", "rates_old");

    List<InstalledTrigger> present =
        triggers.stream().map(t -> new InstalledTrigger(rates, t.name())).toList();
    assertThat(dialect.toRun(script, present)).as("all there: nothing to run").isEmpty();

    // RENAME TABLE rates TO rates_old, ...: the same names, now on rates_old, recording rates
    List<InstalledTrigger> movedAway =
        triggers.stream().map(t -> new InstalledTrigger(ratesOld, t.name(), rates)).toList();
    assertThat(dialect.toRun(script, movedAway)).containsExactlyElementsOf(script);
  }
}
