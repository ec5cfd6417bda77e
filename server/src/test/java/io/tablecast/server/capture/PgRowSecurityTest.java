package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table with row-level security that applies to the serving user: its snapshot would hold only
 * the rows the policies show that user, while the triggers record every change. Refused at start
 * (and by {@code tablecast check}, which describes the same way), naming the table, the user and
 * the ways out, together with the table's other problems; accepted once the user bypasses it.
 */
class PgRowSecurityTest {

  @Test
  void aTableWhosePoliciesApplyToTheServingUserIsRefusedWithTheWayOut() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("rls");
    String user = "tc_rls_" + db.schema().toLowerCase(java.util.Locale.ROOT);
    String q = "\"" + db.schema() + "\"";
    db.execute(
        "CREATE TABLE accounts (id int PRIMARY KEY, tenant text NOT NULL, balance numeric)",
        "CREATE TABLE plain (id int PRIMARY KEY)",
        "ALTER TABLE accounts ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY own_tenant ON accounts USING (tenant = current_user)",
        "INSERT INTO accounts VALUES (1, 'a', 10), (2, 'b', 20)",
        "DROP ROLE IF EXISTS " + user,
        "CREATE ROLE " + user + " LOGIN PASSWORD 'rls-pw'",
        "GRANT USAGE ON SCHEMA " + q + " TO " + user,
        "GRANT SELECT ON " + q + ".accounts, " + q + ".plain TO " + user);
    try {
      // the owner (here the superuser that created it) reads every row: nothing to refuse
      try (TriggerInstaller installer = TriggerInstaller.connect(config(db.jdbcUrl()))) {
        assertThat(installer.describe()).hasSize(2);
      }
      String url = as(db.jdbcUrl(), user);
      try (TriggerInstaller installer = TriggerInstaller.connect(config(url))) {
        assertThatThrownBy(installer::describe)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("table " + db.table("accounts") + " has row-level security")
            .hasMessageContaining(
                "applies to " + user + ", the user this configuration connects as")
            .hasMessageContaining("ALTER ROLE " + user + " BYPASSRLS")
            .hasMessageContaining("FORCE ROW LEVEL SECURITY")
            .hasMessageNotContaining(db.table("plain"));
      }
      db.execute("ALTER ROLE " + user + " BYPASSRLS");
      try (TriggerInstaller installer = TriggerInstaller.connect(config(url))) {
        assertThat(installer.describe()).hasSize(2);
      }
      // the owner is held to the policies too once they are forced on it
      db.execute(
          "ALTER ROLE " + user + " NOBYPASSRLS",
          "ALTER TABLE accounts OWNER TO " + user,
          "ALTER TABLE accounts FORCE ROW LEVEL SECURITY");
      try (TriggerInstaller installer = TriggerInstaller.connect(config(url))) {
        assertThatThrownBy(installer::describe).hasMessageContaining("has row-level security");
      }
      db.execute("ALTER TABLE accounts NO FORCE ROW LEVEL SECURITY");
      try (TriggerInstaller installer = TriggerInstaller.connect(config(url))) {
        assertThat(installer.describe()).hasSize(2);
      }
    } finally {
      db.execute("DROP TABLE accounts", "DROP OWNED BY " + user, "DROP ROLE " + user);
    }
  }

  private static SourceConfig config(String url) {
    return new SourceConfig(url, null, null, List.of("accounts", "plain"), false, null, null);
  }

  private static String as(String url, String user) {
    String withUser = url.replaceAll("user=[^&]*", "user=" + user);
    return withUser.contains("password=")
        ? withUser.replaceAll("password=[^&]*", "password=rls-pw")
        : withUser + "&password=rls-pw";
  }
}
