package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class SqlErrorsTest {

  @Test
  void aPreparedStatementLostToATransactionPoolerSaysTheWayOut() {
    assertThat(
            SqlErrors.describe(
                new SQLException("ERROR: prepared statement \"S_1\" already exists", "42P05")))
        .contains("prepareThreshold=0");
    assertThat(
            SqlErrors.describe(
                new SQLException("ERROR: prepared statement \"S_6\" does not exist", "26000")))
        .contains("prepareThreshold=0");
    assertThat(SqlErrors.describe(new SQLException("ERROR: deadlock detected", "40P01")))
        .isEqualTo("java.sql.SQLException: ERROR: deadlock detected");
  }

  /**
   * HikariCP's "connection is not available" after a try to connect failed names the pool's counts
   * but not the failure, its cause: the log and the stale reason name it.
   */
  @Test
  void thePoolsTimeoutIsSaidByTheFailedTryToConnectBehindIt() {
    SQLException refused =
        new SQLException("Could not connect to address=(host=db)(port=3306): Connection refused");
    SQLException timeout =
        new SQLTransientConnectionException(
            "tablecast-source - Connection is not available, request timed out after 10000ms"
                + " (total=0, active=0, idle=0, waiting=1)",
            "08003",
            0,
            refused);
    assertThat(SqlErrors.kind(timeout)).as("the refusal's").isNull();
    SQLException denied = new SQLException("Access denied for user 'tc'", "28000");
    assertThat(
            SqlErrors.kind(
                new SQLTransientConnectionException(
                    "Connection is not available", "28000", 0, denied)))
        .isEqualTo("28");
    assertThat(SqlErrors.kind(new SQLException("Socket error", "08000"))).isEqualTo("08");
    assertThat(SqlErrors.inFewWords(timeout))
        .isEqualTo(
            "no connection to the database could be made: Could not connect to"
                + " address=(host=db)(port=3306): Connection refused");
    assertThat(SqlErrors.describe(timeout))
        .startsWith("java.sql.SQLTransientConnectionException: tablecast-source - Connection is")
        .endsWith(
            "(the last try to connect: Could not connect to address=(host=db)(port=3306):"
                + " Connection refused)");

    SQLException busy =
        new SQLTransientConnectionException(
            "tablecast-source - Connection is not available, request timed out after 10000ms"
                + " (total=5, active=5, idle=0, waiting=1)");
    assertThat(SqlErrors.inFewWords(busy)).isEqualTo(busy.getMessage());
    assertThat(SqlErrors.kind(busy)).as("no SQLSTATE").isNull();
    assertThat(SqlErrors.inFewWords(new SQLException("ERROR: deadlock detected")))
        .isEqualTo("ERROR: deadlock detected");
  }
}
