package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB triggers run as the account that created them, the one that ran {@code tablecast
 * install}. With that account dropped (a deploy account rotated away), every write of a cached
 * table failed ("ERROR 1449: The user specified as a definer does not exist"), and Tablecast could
 * not help: {@code check} found nothing wrong, {@code install} found every trigger present and did
 * nothing, a server allowed to install left them. Now the check names the trigger, the account and
 * the way out, and install (by hand, or the server's capture check) recreates the triggers as the
 * account that runs it. MariaDB only: MySQL 8.0.22 and later refuse to drop a definer's account
 * without SET_USER_ID.
 */
class TriggerDefinerGoneTest {

  @Test
  void checkNamesATriggerWhoseAccountIsGoneAndInstallRecreatesIt() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("definer_gone");
    db.execute("CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)");
    String account = account(db);
    try {
      installAsAGoneAccount(db, account);
      assertThatThrownBy(() -> db.execute("INSERT INTO " + db.table("items") + " VALUES (1, 1)"))
          .as("the application's writes fail")
          .hasStackTraceContaining("definer");

      try (TriggerInstaller admin = TriggerInstaller.connect(config(db, false, null))) {
        List<CaptureFinding> found = admin.installProblems(admin.describe());
        assertThat(found)
            .anySatisfy(
                f -> {
                  assertThat(f.severity()).isEqualTo(CaptureFinding.Severity.WARN);
                  assertThat(f.message())
                      .contains("runs as " + account + "@%, an account that no longer exists")
                      .contains("every write of " + db.table("items") + " fails")
                      .contains("tablecast install");
                });
        assertThat(found)
            .filteredOn(f -> f.message().contains("no longer exists"))
            .as("one finding for the table's three triggers (insert, update, delete)")
            .hasSize(1);
        admin.install();
        assertThat(admin.installProblems(admin.describe()))
            .noneMatch(f -> f.message().contains("no longer exists"));
      }
      db.execute("INSERT INTO " + db.table("items") + " VALUES (1, 1)");
      assertThat(
              count(
                  db,
                  "SELECT COUNT(*) FROM "
                      + db.table("tablecast_outbox")
                      + " WHERE table_name = '"
                      + db.table("items")
                      + "'"))
          .as("the write is captured")
          .isEqualTo(1);
    } finally {
      db.execute("DROP USER IF EXISTS '" + account + "'@'%'");
    }
  }

  @Test
  void aServerThatMayInstallRecreatesItWhileServing() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("definer_gone_serving");
    db.execute(
        "CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)",
        "CREATE USER IF NOT EXISTS '" + account(db) + "'@'%' IDENTIFIED BY 'deploy-pw'");
    String account = account(db);
    try (PolledSource tail = openAfterInstallingAs(db, account)) {
      tail.poll();
      db.execute("DROP USER '" + account + "'@'%'");
      await("the application's writes work again")
          .atMost(Duration.ofSeconds(20))
          .until(() -> writes(db, "INSERT INTO " + db.table("items") + " VALUES (1, 1)"));
      await("and are delivered")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("items") == 1);
      assertThat(logged("runs as " + account + "@%, an account that no longer exists")).isTrue();
      assertThat(
              RecentEvents.global().newestFirst().stream()
                  .filter(e -> e.message().contains(account + "@%, an account that no longer"))
                  .count())
          .as("one ERROR for the table's three triggers")
          .isEqualTo(1);
      await("the repair said") // after the check that follows the install
          .atMost(Duration.ofSeconds(10))
          .until(() -> logged("recreated as the server's account: their writes work again"));
      assertThat(tail.staleNow("items")).as("nothing went uncaptured: not stale").isFalse();
    } finally {
      db.execute("DROP USER IF EXISTS '" + account + "'@'%'");
    }
  }

  /** Installs the capture as {@code account} (created here), then drops that account. */
  private static void installAsAGoneAccount(TestDatabases.Isolated db, String account)
      throws Exception {
    db.execute("CREATE USER IF NOT EXISTS '" + account + "'@'%' IDENTIFIED BY 'deploy-pw'");
    installAs(db, account);
    db.execute("DROP USER '" + account + "'@'%'");
  }

  private static void installAs(TestDatabases.Isolated db, String account) throws Exception {
    db.execute("GRANT ALL ON `" + db.schema() + "`.* TO '" + account + "'@'%'");
    String url =
        db.jdbcUrl()
            .replaceAll("user=[^&]*", "user=" + account)
            .replaceAll("password=[^&]*", "password=deploy-pw");
    try (TriggerInstaller deploy =
        TriggerInstaller.connect(
            new SourceConfig(url, null, null, List.of("items"), true, null, null, null, null))) {
      deploy.describe();
      deploy.install();
    }
  }

  /** Installs as {@code account}, then opens a source that may install, as the administrator. */
  private static PolledSource openAfterInstallingAs(TestDatabases.Isolated db, String account)
      throws Exception {
    installAs(db, account);
    return PolledSource.open(
        config(db, true, Duration.ofSeconds(1)), MicrometerServerMetrics.inMemory());
  }

  private static SourceConfig config(
      TestDatabases.Isolated db, boolean install, Duration captureCheck) {
    return new SourceConfig(
        db.jdbcUrl(), null, null, List.of("items"), install, null, null, null, captureCheck);
  }

  private static String account(TestDatabases.Isolated db) {
    String s = db.schema().replaceAll("[^a-z0-9]", "");
    return "tc_dg_" + s.substring(Math.max(0, s.length() - 16));
  }

  private static boolean writes(TestDatabases.Isolated db, String sql) {
    try {
      db.execute(sql);
      return true;
    } catch (RuntimeException e) {
      if (e.getCause() instanceof SQLException s && s.getErrorCode() == 1449) {
        return false;
      }
      throw e;
    }
  }

  private static long count(TestDatabases.Isolated db, String sql) throws SQLException {
    try (java.sql.Connection c = db.connect();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean logged(String text) {
    return RecentEvents.global().newestFirst().stream().anyMatch(e -> e.message().contains(text));
  }
}
