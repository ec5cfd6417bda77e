package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The session statement of each flavor names only variables and modes that flavor knows: MySQL 8
 * refuses MariaDB's {@code max_statement_time} and the {@code NO_AUTO_CREATE_USER} mode it removed
 * (MySQL 8 was never run here; MariaDB runs the statement in every test that starts a server).
 */
class SessionSettingsTest {

  @Test
  void eachFlavorLiftsItsOwnStatementTimeLimit() {
    assertThat(SessionSettings.statement(MysqlFlavor.MARIADB))
        .contains("max_statement_time = 0")
        .doesNotContain("max_execution_time");
    assertThat(SessionSettings.statement(MysqlFlavor.MYSQL))
        .contains("max_execution_time = 0")
        .doesNotContain("max_statement_time");
  }

  @Test
  void onlyMariadbLiftsItsIdleTransactionLimits() {
    assertThat(SessionSettings.statement(MysqlFlavor.MARIADB))
        .contains(
            "idle_transaction_timeout = 0",
            "idle_readonly_transaction_timeout = 0",
            "idle_write_transaction_timeout = 0");
    assertThat(SessionSettings.statement(MysqlFlavor.MYSQL)).doesNotContain("idle_");
  }

  @Test
  void theSqlModeHoldsNothingThatChangesHowTheServersSqlParses() {
    for (MysqlFlavor flavor : MysqlFlavor.values()) {
      assertThat(SessionSettings.statement(flavor))
          .contains("time_zone = 'SYSTEM'", "sql_select_limit = 18446744073709551615")
          .doesNotContain("ANSI", "NO_BACKSLASH_ESCAPES", "PIPES_AS_CONCAT", "NO_AUTO_CREATE_USER");
    }
  }

  @Test
  void docsConfigurationQuotesMariadbsStatementAsItIs() throws Exception {
    Path root = Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."));
    assertThat(Files.readString(root.resolve("docs/CONFIGURATION.md")))
        .contains("`" + SessionSettings.statement(MysqlFlavor.MARIADB) + "`");
  }
}
