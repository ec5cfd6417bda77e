package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The wanted outbox rows of one read of {@link MysqlChangeSource}: their ids, and the changed keys
 * they name.
 */
final class OutboxRead {
  final List<Long> ids = new ArrayList<>();
  final ChangedRows changed;
  long captureMillis;
  int rows;

  private OutboxRead(CapturePlan plan, MysqlFlavor flavor, Consumer<String> rowRefused) {
    this.changed = new ChangedRows(plan, flavor, rowRefused);
  }

  /**
   * One consistent read of the outbox of {@code plan} (one statement, or inside the caller's
   * snapshot): the rows {@code gaps} still wants.
   *
   * @param flavor how its changed rows are read ({@link ChangedRows})
   * @param rowRefused told the table of each changed row that cannot be read
   */
  static OutboxRead read(
      Statement s,
      CapturePlan plan,
      MysqlFlavor flavor,
      GapTracker gaps,
      Consumer<String> rowRefused)
      throws SQLException {
    OutboxRead read = new OutboxRead(plan, flavor, rowRefused);
    String sql =
        "SELECT id, table_name, op, new_key, old_key, CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED) FROM "
            + plan.outboxTable()
            + " WHERE "
            + gaps.whereClause()
            + " ORDER BY id";
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        long id = rs.getLong(1);
        if (!gaps.wanted(id)) {
          continue; // the id-range form of the gap list also returns delivered rows
        }
        read.ids.add(id);
        if (read.changed.add(rs.getString(2), rs.getString(4), rs.getString(5))) {
          read.captureMillis = Math.max(read.captureMillis, rs.getLong(6));
          read.rows++;
        }
      }
    }
    return read;
  }
}
