package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/** Reading helpers shared by both change sources. */
final class OutboxRows {
  private OutboxRows() {}

  /**
   * One outbox row of {@code table} as an event: {@code code} its op code, {@code after} and
   * {@code before} its parsed row images (null when absent), normalized by {@code n}.
   */
  static RowEvent event(String table, String code, RowNormalizer n, JsonNode after, JsonNode before) {
    if (code.equals(RowEvent.TRUNCATE_CODE)) {
      return RowEvent.truncate(table);
    }
    return new RowEvent(table, Op.forCode(code), n.normalize(before), n.normalize(after));
  }

  /** Streams every row of every table in the connection's current transaction; returns row counts. */
  static long readTables(CapturePlan plan, Connection c, ChangeSource.SnapshotSink sink, Map<String, Long> counts)
      throws SQLException {
    long total = 0;
    for (TableSchema t : plan.tables()) {
      RowNormalizer n = plan.normalizer(t.id().qualified());
      long rows = 0;
      try (Statement s = c.createStatement()) {
        s.setFetchSize(1000);
        try (ResultSet rs = s.executeQuery(plan.snapshotQuery(t))) {
          while (rs.next()) {
            sink.row(t, present(n, rs.getString(1)));
            rows++;
          }
        }
      }
      counts.put(t.id().qualified(), rows);
      total += rows;
    }
    return total;
  }

  /**
   * A whole row read as JSON, normalized; a row that reads as NULL is refused loudly, never taken
   * for a missing row: MySQL and MariaDB's {@code JSON_OBJECT} returns NULL (with a warning) when
   * the row's JSON form is larger than {@code max_allowed_packet}.
   */
  static ObjectNode present(RowNormalizer n, String json) {
    if (json == null) {
      throw new IllegalStateException(tooLarge(n.table().id().qualified(), null));
    }
    return n.normalize(json);
  }

  /** Why a row of {@code table} (with {@code key}, when known) cannot be read, and the way out. */
  static String tooLarge(String table, Object key) {
    return "a row of " + table + (key == null ? "" : " with key " + key) + " cannot be read: its JSON form is "
        + "larger than the database's max_allowed_packet (MySQL/MariaDB's JSON_OBJECT returns NULL then); raise "
        + "max_allowed_packet (SET GLOBAL max_allowed_packet, up to 1 GB) to cache it";
  }

  /** Every row of one table in the connection's current transaction, normalized like the snapshot. */
  static List<ObjectNode> readTable(CapturePlan plan, Connection c, TableSchema t) throws SQLException {
    RowNormalizer n = plan.normalizer(t.id().qualified());
    List<ObjectNode> rows = new java.util.ArrayList<>();
    try (Statement s = c.createStatement()) {
      s.setFetchSize(1000);
      try (ResultSet rs = s.executeQuery(plan.snapshotQuery(t))) {
        while (rs.next()) {
          rows.add(present(n, rs.getString(1)));
        }
      }
    }
    return rows;
  }

  static void logSnapshot(Logger log, Map<String, Long> counts, long total, long startNanos, String position) {
    log.info("Snapshot of {} rows in {} ms ({}), position {}", total,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), counts, position);
  }

  static CommittedBatch batch(List<RowEvent> events, long captureMillis) {
    return batch(events, captureMillis, List.of());
  }

  static CommittedBatch batch(List<RowEvent> events, long captureMillis, List<CommittedBatch.TableRead> reads) {
    return batch(events, captureMillis, reads, List.of());
  }

  static CommittedBatch batch(List<RowEvent> events, long captureMillis, List<CommittedBatch.TableRead> reads,
      List<CommittedBatch.Staleness> staleness) {
    return events.isEmpty() && reads.isEmpty() && staleness.isEmpty() ? CommittedBatch.EMPTY
        : new CommittedBatch(events, captureMillis, reads, staleness);
  }
}
