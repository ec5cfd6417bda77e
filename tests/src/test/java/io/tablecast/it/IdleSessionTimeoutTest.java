package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's {@code idle_session_timeout} on the server's user (14+; DBAs set one for interactive
 * roles, here through the URL, to the same effect on the server's sessions): the database closed
 * the pool's idle connections under it, and each next use (the tail, the pruner, the consumer
 * heartbeat) found its connection closed, HikariCP logging "Failed to validate connection ...
 * consider using a shorter maxLifetime value" (the old code: sessions ended by the timeout in this
 * test, counted by {@code pg_stat_database.sessions_fatal}). The pool's sessions now have none; the
 * pool ends its own connections. MySQL/MariaDB's {@code wait_timeout}: {@code
 * MysqlServerSettingsTest}.
 */
class IdleSessionTimeoutTest {

  @Test
  void anIdleSessionTimeoutOfTheServersUserDoesNotCloseItsPoolsConnections() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "idle_timeout",
            List.of("CREATE TABLE items (id int PRIMARY KEY, name varchar(40))"),
            "items")) {
      long endedBefore = sessionsEndedByErrors(p);
      p.startServerWithUrlOptions("&options=-c%20idle_session_timeout%3D1000");
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("idle"), "items");
      Thread.sleep(5000); // the pruner and the consumer heartbeat take an idle connection meanwhile
      p.sql("INSERT INTO items VALUES (1, 'a')");
      await().atMost(Duration.ofSeconds(10)).until(() -> m.get(1) != null);
      await()
          .during(Duration.ofSeconds(2)) // a session's end reaches the statistics when it exits
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(sessionsEndedByErrors(p) - endedBefore)
                      .as("sessions the database ended with an error (sessions_fatal)")
                      .isZero());
    }
  }

  private static long sessionsEndedByErrors(Pipeline p) throws Exception {
    try (Connection c = DriverManager.getConnection(p.db.jdbcUrl());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT sessions_fatal FROM pg_stat_database WHERE datname = current_database()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
