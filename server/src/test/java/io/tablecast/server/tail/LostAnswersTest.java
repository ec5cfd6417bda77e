package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.DatabaseFamily;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The database's word on the read's session, on each database: a session at work on the read (a
 * long statement) is left alone however long the read takes; one waiting for its client is left
 * alone until it has waited as long as asked, then its connection is aborted; and no read in
 * progress, nothing is done.
 */
class LostAnswersTest {

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aSessionAtWorkIsLeftAloneAndOneWaitingForItsClientIsAborted(TestDatabases.Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("lost_answers");
    try (HikariDataSource pool = pool(db.jdbcUrl())) {
      SessionProbe sessions = sessionsOf(db);
      LostAnswers lost = new LostAnswers(pool, sessions, new InstanceWatch(null));
      assertThat(lost.abandonIfLost(0)).as("no read in progress").isNull();

      try (Connection c = pool.getConnection()) {
        lost.reading(c);
        String sleep =
            kind == TestDatabases.Kind.POSTGRESQL ? "SELECT pg_sleep(3)" : "SELECT SLEEP(3)";
        CompletableFuture<Void> longRead =
            CompletableFuture.runAsync(
                () -> {
                  try (Statement s = c.createStatement()) {
                    s.execute(sleep);
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        Thread.sleep(1_500);
        assertThat(lost.abandonIfLost(0)).as("at work on the read").isNull();
        longRead.get(10, TimeUnit.SECONDS); // not aborted: it ran to its end

        assertThat(lost.abandonIfLost(60)).as("not waiting for that long").isNull();
        Thread.sleep(2_500); // the read's answer was lost: the session waits for its client
        assertThat(lost.abandonIfLost(2))
            .contains("has waited")
            .contains("lost on the way")
            .contains("aborted");
        assertThatThrownBy(
                () -> {
                  try (Statement s = c.createStatement()) {
                    s.execute("SELECT 1");
                  }
                })
            .as("the read's connection is aborted")
            .isInstanceOf(SQLException.class);
        lost.readEnded();
      }
      assertThat(lost.abandonIfLost(0)).as("the read ended").isNull();
    }
  }

  /**
   * A session the database does not say the read's connection is (a pooler between, whose own
   * session id names another client's session on the database, idle for long as a pooler's own
   * connections are) is never taken for the read's: the read is left alone (before, it was aborted,
   * and a read longer than the wait would have been made again for ever), and that session is never
   * ended, however long it has waited for its client.
   */
  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aSessionTheDatabaseDoesNotVouchForIsLeftAloneAndNeverEnded(TestDatabases.Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("lost_answers");
    try (HikariDataSource pool = pool(db.jdbcUrl());
        Connection bystander = db.connect()) {
      SessionProbe database = sessionsOf(db);
      long bystanderId = database.sessionOf(bystander);
      SessionProbe behindAPooler = // the driver knows the pooler's id, the bystander's here
          new SessionProbe() {
            @Override
            public long sessionOf(Connection c) {
              return bystanderId;
            }

            @Override
            public String sessionIdQuery() {
              return database.sessionIdQuery();
            }

            @Override
            public long idleSeconds(Connection other, long session) throws SQLException {
              return database.idleSeconds(other, session);
            }

            @Override
            public boolean end(Connection other, long session, long idleSeconds)
                throws SQLException {
              return database.end(other, session, idleSeconds);
            }

            @Override
            public Map<String, String> boundedConnection() {
              return database.boundedConnection();
            }
          };
      LostAnswers lost = new LostAnswers(pool, behindAPooler, new InstanceWatch(null));
      try (Connection c = db.connect()) {
        lost.reading(c);
        Thread.sleep(2_100);
        assertThat(lost.abandonIfLost(2)).as("left alone: a pooler's id").isNull();
        select1(c); // not aborted
      }
      try (Connection range = db.connect()) { // a reconciliation range given up
        lost.abandoning(range, 0).run();
      }
      select1(bystander); // still there
    }
  }

  /**
   * A reconciliation range given up without an answer has its session ended on the database's side,
   * once it has waited as long for its client: closing the connection ends nothing there when its
   * packets are lost on the way, and the session would keep the range's lock for hours.
   */
  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aRangeGivenUpHasItsSessionEndedOnTheDatabasesSide(TestDatabases.Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("lost_answers");
    try (HikariDataSource pool = pool(db.jdbcUrl());
        Connection range = db.connect()) {
      SessionProbe sessions = sessionsOf(db);
      LostAnswers lost = new LostAnswers(pool, sessions, new InstanceWatch(null));
      Runnable ending = lost.abandoning(range, 1); // asks the database which session it is
      Thread.sleep(1_100);
      ending.run();
      assertThatThrownBy(() -> select1(range)).isInstanceOf(SQLException.class);
    }
  }

  private static void select1(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
  }

  /** What the database family of {@code db} says of its sessions. */
  private static SessionProbe sessionsOf(TestDatabases.Isolated db) throws SQLException {
    try (Connection c = db.connect()) {
      return ((TailDialect) family(db.jdbcUrl()).detect(c)).sessions();
    }
  }

  /** The registered family that serves {@code url}. */
  private static DatabaseFamily family(String url) {
    return ServiceLoader.load(DatabaseFamily.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(f -> f.urlPrefixes().stream().anyMatch(url::startsWith))
        .findFirst()
        .orElseThrow();
  }

  private static HikariDataSource pool(String url) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url);
    hc.setMaximumPoolSize(2);
    return new HikariDataSource(hc);
  }
}
