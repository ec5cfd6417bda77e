package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.tail.InstanceWatch;
import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A read of whole tables (the snapshot at start, a re-read while serving) opens its transaction
 * with the statements of {@link PgWholeRead}: its locks, its snapshot, then its settings, which
 * lift the role's {@code idle_in_transaction_session_timeout}. A role's limit shorter than the
 * server's pauses between those first statements (50 ms, a loaded machine) ended the session before
 * the settings ran ({@code FATAL: terminating connection due to idle-in-transaction timeout}: an
 * "initial snapshot failed" retried, StatementTimeoutTest's first run in a fresh JVM). The first
 * statement, sent with the BEGIN, now lifts it.
 */
class ReadsIdleLimitTest {

  @Test
  void theFirstStatementsOfAWholeReadOutlastARoleIdleLimitShorterThanTheirPauses()
      throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("whole_read_idle");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1), (2)");
    try (Connection plain = db.connect()) {
      plain.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      Connection c = SlowConnection.underIdleLimit(plain);
      PgOutboxQueries.beginWholeRead(c);
      PgOutboxQueries.lockBeforeSnapshot(c, List.of(new TableId(db.schema(), "items")));
      PgOutboxQueries.currentSnapshot(c);
      try (Statement s = c.createStatement()) {
        s.execute(PgSessionSettings.tableReads());
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
          rs.next();
          assertThat(rs.getInt(1)).isEqualTo(2);
        }
      }
      c.commit();
    }
  }

  @Test
  void aPollOutlastsARoleIdleLimitShorterThanItsPauses() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("poll_idle");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)");
    try (Connection plain = db.connect()) {
      plain.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      Connection c = SlowConnection.underIdleLimit(plain);
      PgOutboxQueries.beginRead(c);
      PgOutboxQueries.currentSnapshot(c, new InstanceWatch(null));
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      c.commit();
    }
  }
}
