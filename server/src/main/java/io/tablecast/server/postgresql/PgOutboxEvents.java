package io.tablecast.server.postgresql;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.RowEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The events of the outbox rows {@link PgChangeSource} reads: each row's images encoded straight
 * from their text when they hold exactly the table's current columns, else parsed once and looked
 * at as trees, which also tells {@link PgColumnChanges} whether the table's columns changed.
 * Confined to the tail thread.
 */
final class PgOutboxEvents {

  /** Logs under {@link PgChangeSource}, as before this was split out of it. */
  private static final Logger LOG = RecentEvents.logger(PgChangeSource.class);

  /** The source's current plan: a column change replaces it. */
  private final Supplier<CapturePlan> plan;

  private final PgColumnChanges columnChanges;

  PgOutboxEvents(Supplier<CapturePlan> plan, PgColumnChanges columnChanges) {
    this.plan = plan;
    this.columnChanges = columnChanges;
  }

  /**
   * Reads the outbox rows of the transactions committed after {@code previousSnapshot} with {@code
   * readSql} (its three parameters that snapshot), in the connection's transaction: their events
   * into {@code events}, the cached tables they mark for a re-read (op {@code R}: a partition or
   * child truncated) into {@code resync}, each such mark told to {@code onRereadMark}.
   *
   * @return the latest capture time of the rows taken, epoch ms (0: none)
   */
  long readAfter(
      Connection c,
      String readSql,
      String previousSnapshot,
      Set<String> resync,
      List<RowEvent> events,
      Runnable onRereadMark)
      throws SQLException {
    long captureMillis = 0;
    try (PreparedStatement ps = c.prepareStatement(readSql)) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, previousSnapshot);
      }
      ps.setFetchSize(1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (RowEvent.RESYNC_CODE.equals(rs.getString(3).trim())) {
            if (plan.get().normalizer(rs.getString(2)) != null) {
              resync.add(rs.getString(2));
              captureMillis = Math.max(captureMillis, rs.getLong(6));
              onRereadMark.run();
            }
            continue;
          }
          RowEvent e = event(c, rs, resync);
          if (e != null) {
            events.add(e);
            captureMillis = Math.max(captureMillis, rs.getLong(6));
          }
        }
      }
    }
    return captureMillis;
  }

  /**
   * One outbox row ({@code id, table_name, op, new_row, old_row, created_at} of the read) as an
   * event; null for a table another server caches. Its images are parsed once, and the parsed image
   * also tells {@link PgColumnChanges} whether the table's columns changed (ALTER TABLE): then the
   * table joins {@code resync} (re-read in this snapshot with the new columns) and the row is read
   * with them.
   */
  RowEvent event(Connection c, ResultSet rs, Set<String> resync) throws SQLException {
    String table = rs.getString(2);
    RowNormalizer n = plan.get().normalizer(table);
    if (n == null || columnChanges.uncacheable(table)) {
      return null; // not ours, or left out until it can be cached as configured again
    }
    String code = rs.getString(3).trim();
    String afterText = rs.getString(4);
    String beforeText = rs.getString(5);
    RowEvent exact = exactEvent(table, code, n, afterText, beforeText);
    if (exact != null) {
      return exact;
    }
    JsonNode after = parse(n, afterText);
    JsonNode before = parse(n, beforeText);
    if (columnChanges.changed(c, n.table(), after != null ? after : before)) {
      resync.add(table);
      n = plan.get().normalizer(table);
    } else if (columnChanges.uncacheable(table)) {
      return null; // altered so that it cannot be cached as configured: found now
    }
    JsonNode image = after != null ? after : before;
    if (image != null && !n.table().primaryKey().stream().allMatch(image::has)) {
      // written before a primary-key column existed, read after the plan took the new key: the
      // table is re-read whole in this snapshot instead
      if (resync.add(table)) {
        LOG.warn(
            "Outbox rows of {} lack its primary key {}: re-reading the table",
            table,
            n.table().primaryKey());
      }
      return null;
    }
    try {
      return OutboxRows.event(table, code, n, after, before);
    } catch (IllegalStateException conversion) { // a value that no longer fits its column's type
      if (!columnChanges.describedAgain(c, n.table())) {
        if (columnChanges.uncacheable(table)) {
          return null;
        }
        throw conversion;
      }
      resync.add(table);
      return OutboxRows.event(table, code, plan.get().normalizer(table), after, before);
    }
  }

  /**
   * The event of an outbox row whose images hold exactly the table's current columns, encoded
   * straight from their text (no tree: the common case); null for anything else (an image of other
   * columns, a truncate or re-read, a value that does not convert), which {@link #event} then looks
   * at as trees (or {@link PgSingleStatementRead} hands to a read in a transaction).
   */
  static RowEvent exactEvent(
      String table, String code, RowNormalizer n, String afterText, String beforeText) {
    if (code.length() != 1 || "IUD".indexOf(code.charAt(0)) < 0) {
      return null;
    }
    try {
      byte[] after = afterText == null ? null : n.encodeExact(afterText);
      byte[] before = beforeText == null ? null : n.encodeExact(beforeText);
      boolean exact =
          (afterText == null || after != null)
              && (beforeText == null || before != null)
              && (after != null || before != null);
      return exact ? OutboxRows.event(table, code, n, after, before) : null;
    } catch (IllegalStateException conversion) {
      return null; // the tree path decides: the columns may have changed
    }
  }

  private static JsonNode parse(RowNormalizer n, String image) {
    return image == null ? null : n.parse(image);
  }
}
