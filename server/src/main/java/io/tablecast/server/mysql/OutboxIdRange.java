package io.tablecast.server.mysql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbox ids a snapshot of {@link MysqlChangeSource} sees, from which its {@link GapTracker}
 * starts: the lowest and highest (0 and 0 when the outbox is empty) and the ids missing between
 * them.
 */
record OutboxIdRange(long min, long max, List<Long> missing) {

  /** Reads the range of {@code outboxTable} in the statement's transaction. */
  static OutboxIdRange read(Statement s, String outboxTable) throws SQLException {
    long min;
    long max;
    long count;
    List<Long> missing = new ArrayList<>();
    try (ResultSet rs =
        s.executeQuery(
            "SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0), COUNT(*) FROM " + outboxTable)) {
      rs.next();
      min = rs.getLong(1);
      max = rs.getLong(2);
      count = rs.getLong(3);
    }
    if (count > 0 && count != max - min + 1) {
      s.setFetchSize(10_000);
      try (ResultSet rs = s.executeQuery("SELECT id FROM " + outboxTable + " ORDER BY id")) {
        long next = min;
        while (rs.next()) {
          long id = rs.getLong(1);
          for (long g = next; g < id; g++) {
            missing.add(g);
          }
          next = id + 1;
        }
      }
    }
    return new OutboxIdRange(min, max, missing);
  }
}
