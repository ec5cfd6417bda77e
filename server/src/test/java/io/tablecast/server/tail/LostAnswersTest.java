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
      SessionProbe sessions;
      try (Connection c = pool.getConnection()) {
        sessions = ((TailDialect) family(db.jdbcUrl()).detect(c)).sessions();
      }
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
