package io.tablecast.server.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * MySQL/MariaDB: asks InnoDB whether outbox ids are held by an open transaction, without waiting. A
 * row inserted by a transaction that has not ended is locked by it, so a locking read with {@code
 * NOWAIT} fails at once (error 1205 on MariaDB, 3572 on MySQL 8); a rolled-back row is gone and the
 * read finds nothing; a committed row is found. Run in READ COMMITTED, where a locking read of a
 * missing key takes no gap lock, so probes never block writers.
 */
final class LockProbe {
  private static final int MARIADB_LOCK_WAIT = 1205;
  private static final int MYSQL_LOCK_NOWAIT = 3572;

  private final String sql;

  LockProbe(MysqlFlavor flavor, String outboxTable) {
    this.sql = "SELECT id FROM " + outboxTable + " WHERE id >= ? AND id < ? " + flavor.lockNowait;
  }

  /**
   * What ids {@code [from, to)} hold: LOCKED when any of them is locked, PRESENT when a single id
   * is committed, ABSENT otherwise (for a range, rows already delivered do not count).
   *
   * @param c an autocommit connection in READ COMMITTED
   */
  GapTracker.Probe probe(Connection c, long from, long to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, from);
      ps.setLong(2, to);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && to == from + 1 ? GapTracker.Probe.PRESENT : GapTracker.Probe.ABSENT;
      }
    } catch (SQLException e) {
      if (e.getErrorCode() == MARIADB_LOCK_WAIT || e.getErrorCode() == MYSQL_LOCK_NOWAIT) {
        return GapTracker.Probe.LOCKED;
      }
      throw e;
    }
  }
}
