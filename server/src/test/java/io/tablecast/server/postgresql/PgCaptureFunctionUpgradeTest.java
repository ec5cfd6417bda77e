package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capture functions of an earlier version ran with the writer's rights (docs/INSTALL.md,
 * "Upgrading"): a server that may not install refuses them as outdated, naming {@code tablecast
 * install}, which replaces them by functions that run as their owner, every name qualified, as a
 * server that may install does when it starts.
 */
class PgCaptureFunctionUpgradeTest {

  @Test
  void functionsThatRunAsTheWriterAreOutdatedUntilInstallReplacesThem() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("capture_fn_upgrade");
    db.execute("CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY)");
    SourceConfig installing =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    try (TriggerInstaller admin = TriggerInstaller.connect(installing)) {
      admin.install();
    }
    assertThat(functions(db))
        .containsExactly(
            "tablecast_capture true null",
            "tablecast_capture_pinned true TimeZone=UTC|DateStyle=ISO, MDY|IntervalStyle=postgres|"
                + "lc_monetary=C|bytea_output=hex");
    asAnEarlierVersionLeftThem(db);

    SourceConfig serving =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), false, null, null);
    assertThatThrownBy(() -> ChangeSources.open(serving).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outdated")
        .hasMessageContaining("tablecast install");
    try (TriggerInstaller admin = TriggerInstaller.connect(installing)) {
      admin.install();
    }
    assertThat(functions(db)).allMatch(f -> f.contains(" true "));
    ChangeSources.open(serving).close();

    asAnEarlierVersionLeftThem(db);
    ChangeSources.open(installing).close(); // a server that may install replaces them
    assertThat(functions(db)).allMatch(f -> f.contains(" true "));
  }

  /** Both capture functions as the version before 2026-12-05 left them. */
  private static void asAnEarlierVersionLeftThem(TestDatabases.Isolated db) {
    for (String f : List.of(PgTriggers.PLAIN_FUNCTION, PgTriggers.PINNED_FUNCTION)) {
      db.execute("ALTER FUNCTION \"" + db.schema() + "\"." + f + "() SECURITY INVOKER");
    }
  }

  /** Each capture function: its name, whether SECURITY DEFINER, its settings. */
  private static List<String> functions(TestDatabases.Isolated db) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT p.proname, p.prosecdef, array_to_string(p.proconfig, '|')"
                    + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = '"
                    + db.schema()
                    + "' AND p.proname LIKE 'tablecast_capture%' ORDER BY p.proname")) {
      while (rs.next()) {
        out.add(rs.getString(1) + " " + rs.getBoolean(2) + " " + rs.getString(3));
      }
    }
    return out;
  }
}
