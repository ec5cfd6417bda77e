package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Whether the accounts the capture triggers run as exist is read from {@code mysql.user}, which the
 * least-privilege serving user may not read: it must not be asked then. It was, at every capture
 * check (10 s), and failed with error 1142, which the MariaDB driver logs at WARN in any
 * application that embeds the server.
 */
class TriggerDefinersTest {

  @Test
  void aUserThatSeesNoTriggersIsNotAskedForTheirDefiners() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("definers_unseen");
    String user = account(db);
    try {
      CapturePlan plan = captured(db, user, "SELECT");
      List<SQLException> failed = new CopyOnWriteArrayList<>();
      CaptureStatus status;
      try (Connection c = connectAs(db, user)) {
        status =
            ((MysqlDialect) plan.dialect())
                .captureStatus(recording(c, failed), plan.installation(), plan.tables());
      }
      assertThat(status.required())
          .as("this user cannot see the triggers")
          .isNotEmpty()
          .allMatch(t -> t.presence() == RequiredTrigger.Presence.NOT_VISIBLE);
      assertThat(failed).as("statements of the capture check that failed").isEmpty();
    } finally {
      db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }
  }

  /**
   * An install account with the grants docs/SECURITY.md lists ({@code TRIGGER} among them) sees the
   * triggers but may not read {@code mysql.user}: its server's capture check was refused every 10 s
   * and said nothing of what it could not tell. It is told once, and asked again an hour later.
   */
  @Test
  void aUserThatSeesTheTriggersButMayNotReadTheAccountsIsToldOnceAndNotAskedAgainSoon()
      throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("definers_unknown");
    String user = account(db);
    try {
      CapturePlan plan = captured(db, user, "SELECT, TRIGGER");
      MysqlDialect dialect = (MysqlDialect) plan.dialect();
      List<SQLException> failed = new CopyOnWriteArrayList<>();
      long toldBefore = told();
      try (Connection c = connectAs(db, user)) {
        for (int check = 0; check < 3; check++) { // three capture checks of one server
          CaptureStatus status =
              dialect.captureStatus(recording(c, failed), plan.installation(), plan.tables());
          assertThat(status.required())
              .as("this user sees the triggers")
              .isNotEmpty()
              .allMatch(t -> t.presence() == RequiredTrigger.Presence.PRESENT);
        }
      }
      assertThat(failed).as("statements of the capture checks that failed").hasSize(1);
      assertThat(failed.get(0).getErrorCode()).isEqualTo(1142);
      assertThat(told() - toldBefore).as("WARNs saying what cannot be told, and why").isEqualTo(1);
    } finally {
      db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }
  }

  /**
   * The table {@code items} of {@code db} captured by the administrator, and the account {@code
   * user} with {@code grants} on its schema; returns the capture plan.
   */
  private static CapturePlan captured(TestDatabases.Isolated db, String user, String grants)
      throws Exception {
    db.execute(
        "CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)",
        "CREATE USER IF NOT EXISTS '" + user + "'@'%' IDENTIFIED BY 'user-pw'",
        "GRANT " + grants + " ON `" + db.schema() + "`.* TO '" + user + "'@'%'");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            new SourceConfig(
                db.jdbcUrl(), null, null, List.of("items"), true, null, null, null, null))) {
      installer.describe();
      installer.install();
      return installer.plan();
    }
  }

  private static Connection connectAs(TestDatabases.Isolated db, String user) throws SQLException {
    return DriverManager.getConnection(
        db.jdbcUrl()
            .replaceAll("user=[^&]*", "user=" + user)
            .replaceAll("password=[^&]*", "password=user-pw"));
  }

  private static long told() {
    return RecentEvents.global().newestFirst().stream()
        .filter(e -> e.message().contains("may not read mysql.user"))
        .count();
  }

  /** {@code c}, whose statements add every exception they throw to {@code failed}. */
  private static Connection recording(Connection c, List<SQLException> failed) {
    return proxy(Connection.class, c, failed);
  }

  private static <T> T proxy(Class<T> type, T target, List<SQLException> failed) {
    Object p =
        Proxy.newProxyInstance(
            TriggerDefinersTest.class.getClassLoader(),
            new Class<?>[] {type},
            (self, method, args) -> {
              Object result;
              try {
                result = method.invoke(target, args);
              } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql) {
                  failed.add(sql);
                }
                throw e.getCause();
              }
              if (result instanceof PreparedStatement ps) {
                return proxy(PreparedStatement.class, ps, failed);
              }
              if (result instanceof Statement s) {
                return proxy(Statement.class, s, failed);
              }
              return result;
            });
    return type.cast(p);
  }

  private static String account(TestDatabases.Isolated db) {
    String s = db.schema().replaceAll("[^a-z0-9]", "");
    return "tc_du_" + s.substring(Math.max(0, s.length() - 16));
  }
}
