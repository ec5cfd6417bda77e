package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The tail ends on the database's side only a session it gave up on and can tell is the server's
 * ({@link PgSessions#end}): idle for as long as asked, of the same user and with the server's
 * application name. Another application's idle session of the same user, or the server's own that
 * has not waited long enough, is left alone.
 */
class PgSessionsEndTest {

  @Test
  void onlyTheServersOwnSessionIdleLongEnoughIsEnded() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("sessions_end");
    String ours = db.jdbcUrl() + "&ApplicationName=" + PgSessions.APPLICATION_NAME;
    try (Connection asking = DriverManager.getConnection(ours);
        Connection server = DriverManager.getConnection(ours);
        Connection application = db.connect()) {
      long serverPid = PgSessions.INSTANCE.sessionOf(server);
      long applicationPid = PgSessions.INSTANCE.sessionOf(application);
      Thread.sleep(1_100);
      assertThat(PgSessions.INSTANCE.end(asking, applicationPid, 1))
          .as("another application's session")
          .isFalse();
      assertThat(PgSessions.INSTANCE.end(asking, serverPid, 60)).as("not idle that long").isFalse();
      assertThat(PgSessions.INSTANCE.end(asking, serverPid, 1)).isTrue();
      assertThatThrownBy(() -> select1(server)).isInstanceOf(SQLException.class);
      select1(application); // still there
    }
  }

  private static void select1(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
  }
}
