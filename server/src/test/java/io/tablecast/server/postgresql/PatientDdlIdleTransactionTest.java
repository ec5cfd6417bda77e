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
}
