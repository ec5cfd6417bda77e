package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * MariaDB ends a session whose transaction waits for its client longer than {@code
 * idle_transaction_timeout} (or its read-only and write forms), which a DBA may set globally. The
 * server's read transactions wait for the server between their statements (the rows a whole read
 * handed on, a loaded machine, a collection); the statement every connection of the server runs
 * first ({@link SessionSettings}) lifts those limits, as it lifts {@code wait_timeout}'s. Here the
 * session starts with limits of one second, as a global one gives it, and a read-only transaction
 * waits two seconds between two statements: the old statement left the limits, and the second
 * statement found its connection killed.
 */
class IdleTransactionTimeoutTest {

  @Test
  void theServersSessionsOutlastAGlobalIdleTransactionLimit() throws Exception {
    Isolated db = Kind.MYSQL.isolated("idle_trx");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "SET SESSION idle_transaction_timeout = 1, idle_readonly_transaction_timeout = 1,"
              + " idle_write_transaction_timeout = 1"); // as global limits give a new session
      s.execute(SessionSettings.statement(MysqlFlavor.MARIADB));
      s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + db.table("items"))) {
        rs.next();
      }
      Thread.sleep(2_000);
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + db.table("items"))) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      s.execute("COMMIT");
    }
  }
}
