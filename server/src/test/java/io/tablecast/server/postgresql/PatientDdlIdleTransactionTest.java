package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.PatientDdl;
import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A transaction of capture DDL on PostgreSQL ({@link PatientDdl}) has the database end its session
 * when it waits {@link DdlLocks#IDLE_IN_TRANSACTION} for its client: one whose answer was lost on
 * the way would otherwise keep the locks it took, and the table's writers waiting behind them,
 * until the database's keepalive finds the connection gone. The end-to-end case, a repair silenced
 * with a writer waiting, is {@code SilentTailStatementsTest} in the tests module.
 */
class PatientDdlIdleTransactionTest {

  @Test
  void aTransactionOfCaptureDdlIsEndedByTheDatabaseWhenItsClientGoesQuiet() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("ddl_idle");
    db.execute("CREATE TABLE t (id INT PRIMARY KEY)");
    try (Connection c = db.connect()) {
      new PatientDdl(c, PgDialect.INSTANCE, List.of(), Duration.ofSeconds(10))
          .run(
              "recording the transaction's settings",
              List.of(
                  "CREATE TABLE seen AS SELECT"
                      + " current_setting('idle_in_transaction_session_timeout') AS idle"));
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT idle FROM seen")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("30s");
      }
    }
  }

  /**
   * A role's own limit shorter than the server's pauses between two statements (a DBA's {@code
   * ALTER ROLE ... SET idle_in_transaction_session_timeout = '50ms'}, and a loaded machine): the
   * limit of the transaction is set first, sent with its BEGIN, so the role's never applies to it.
   * Before, the lock limit went first, and a pause after it ended the session ({@code FATAL:
   * terminating connection due to idle-in-transaction timeout}), which failed the server's start
   * (StatementTimeoutTest in CI). Here every statement waits 100 ms before it is sent.
   */
  @Test
  void aRoleIdleLimitShorterThanTheClientsPausesDoesNotEndTheTransaction() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("ddl_role_idle");
    try (Connection c = db.connect()) {
      new PatientDdl(
              SlowConnection.underIdleLimit(c),
              PgDialect.INSTANCE,
              List.of(),
              Duration.ofSeconds(10))
          .run(
              "two statements with pauses between them",
              List.of("CREATE TABLE a (id INT PRIMARY KEY)", "CREATE TABLE b (id INT)"));
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM a, b")) {
        rs.next();
        assertThat(rs.getInt(1)).isZero();
      }
    }
  }
}
