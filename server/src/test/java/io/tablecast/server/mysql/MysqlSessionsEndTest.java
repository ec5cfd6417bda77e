package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The tail ends on the database's side a session it gave up on ({@link MysqlSessions#end}) only
 * when the session still waits for its client after as long as asked, and is of the server's user:
 * another user's idle session, the server's own that has not waited long enough, and one at work
 * are left alone. The driver's session id is the one the database gives ({@link
 * MysqlSessions#askSessionOf}), without a proxy between.
 */
class MysqlSessionsEndTest {
  private static final String OTHER_USER = "tc_sessions_other";

  @Test
  void onlyTheServersUsersSessionIdleLongEnoughIsEnded() throws Exception {
    Isolated db = Kind.MYSQL.isolated("sessions_end");
    db.execute(
        "DROP USER IF EXISTS '" + OTHER_USER + "'@'%'",
        "CREATE USER '" + OTHER_USER + "'@'%' IDENTIFIED BY 'other-pw'",
        "GRANT SELECT ON `" + db.schema() + "`.* TO '" + OTHER_USER + "'@'%'");
    String otherUrl =
        db.jdbcUrl()
            .replaceAll("user=[^&]*", "user=" + OTHER_USER)
            .replaceAll("password=[^&]*", "password=other-pw");
    MysqlSessions sessions = MysqlSessions.INSTANCE;
    try (Connection asking = db.connect();
        Connection server = db.connect();
        Connection working = db.connect();
        Connection application = DriverManager.getConnection(otherUrl)) {
      long serverId = sessions.sessionOf(server);
      assertThat(sessions.askSessionOf(server)).as("no proxy between").isEqualTo(serverId);
      CompletableFuture<Void> longStatement =
          CompletableFuture.runAsync(
              () -> {
                try (Statement s = working.createStatement()) {
                  s.execute("SELECT SLEEP(3)");
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(2_100);
      assertThat(sessions.end(asking, sessions.sessionOf(application), 1))
          .as("another user's session")
          .isFalse();
      assertThat(sessions.end(asking, sessions.sessionOf(working), 1)).as("at work").isFalse();
      longStatement.get(10, TimeUnit.SECONDS);
      assertThat(sessions.end(asking, serverId, 60)).as("not idle that long").isFalse();
      assertThat(sessions.end(asking, serverId, 1)).isTrue();
      assertThatThrownBy(() -> select1(server)).isInstanceOf(SQLException.class);
      select1(application); // still there
      select1(working);
    } finally {
      db.execute("DROP USER IF EXISTS '" + OTHER_USER + "'@'%'");
    }
  }

  private static void select1(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
  }
}
