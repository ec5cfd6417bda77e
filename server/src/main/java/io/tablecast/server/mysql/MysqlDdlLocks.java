package io.tablecast.server.mysql;

import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * MySQL/MariaDB: {@code lock_wait_timeout} (metadata locks; its default is a year) for the
 * install's session. Which transaction holds a table's metadata lock is not known without
 * performance_schema's instruments, off by default on MariaDB: the holders named are the longest
 * open InnoDB transactions (seen with the PROCESS privilege), one of which holds it.
 */
final class MysqlDdlLocks implements DdlLocks {
  private static final int LOCK_WAIT_TIMEOUT = 1205;

  /** {@code ER_TABLEACCESS_DENIED_ERROR}: "SELECT command denied to user ... for table ...". */
  private static final int TABLE_ACCESS_DENIED = 1142;

  /** {@code ER_COLUMNACCESS_DENIED_ERROR}: the same for a column. */
  private static final int COLUMN_ACCESS_DENIED = 1143;

  private static final String HOLDERS =
      "SELECT p.ID, p.USER, p.HOST, p.COMMAND,"
          + " TIMESTAMPDIFF(SECOND, t.trx_started, NOW()) AS open_seconds"
          + " FROM information_schema.INNODB_TRX t"
          + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
          + " WHERE p.ID <> CONNECTION_ID() ORDER BY t.trx_started LIMIT 5";

  /**
   * The sessions waiting for a metadata lock, longest first: which table each waits for is not
   * known without performance_schema, so every one is named (the DDL and the writers queued behind
   * it).
   */
  private static final String WAITERS =
      "SELECT ID, TIME, LEFT(INFO, 120) FROM information_schema.PROCESSLIST"
          + " WHERE STATE = 'Waiting for table metadata lock' AND ID <> CONNECTION_ID()"
          + " AND INFO IS NOT NULL ORDER BY TIME DESC LIMIT 3";

  @Override
  public String limitWaits(Duration wait) {
    return "SET SESSION lock_wait_timeout = " + Math.max(1, wait.toSeconds());
  }

  @Override
  public String liftLimit() {
    return "SET SESSION lock_wait_timeout = DEFAULT";
  }

  @Override
  public boolean isLockWaitTimeout(SQLException e) {
    return e.getErrorCode() == LOCK_WAIT_TIMEOUT;
  }

  @Override
  public boolean isReadDenied(SQLException e) {
    return e.getErrorCode() == TABLE_ACCESS_DENIED || e.getErrorCode() == COLUMN_ACCESS_DENIED;
  }

  @Override
  public List<String> holders(Connection c, List<TableId> tables) {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(HOLDERS)) {
      while (rs.next()) {
        out.add(
            "thread "
                + rs.getLong("ID")
                + " (user "
                + rs.getString("USER")
                + "@"
                + rs.getString("HOST")
                + ", "
                + rs.getString("COMMAND")
                + ", transaction open "
                + rs.getLong("open_seconds")
                + " s)");
      }
    } catch (SQLException e) { // no PROCESS privilege: none visible
      return List.of();
    }
    return out;
  }

  @Override
  public List<String> waiters(Connection c, TableId table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(WAITERS)) {
      while (rs.next()) {
        out.add("thread " + rs.getLong(1) + " (" + rs.getLong(2) + " s): " + rs.getString(3));
      }
    }
    return out;
  }
}
