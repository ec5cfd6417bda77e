package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
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
}
