package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.capture.TableSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot of one subscribe as frames, table after table at one position:
 * {@code snapshot_begin}, chunks of at most {@link #CHUNK_ROWS} rows and about
 * {@link #CHUNK_BYTES} (a chunk ends at whichever comes first, with at least one row), then
 * {@code snapshot_end}. Bounding chunks by bytes keeps one frame of large rows from overshooting
 * the write buffer (and {@code max_pending_bytes}) by megabytes. The rows
 * are filtered and projected by the session's policy when a table begins (on the catch-up
 * executor, never on the hub thread). Written by a {@link CatchUpSender}.
 */
final class SnapshotFrames implements CatchUpSender.Frames {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotFrames.class);

  /** Rows per {@link Message.SnapshotRows} frame. */
  static final int CHUNK_ROWS = 1000;
  /** Approximate bytes of rows ({@link ResumeBuffer#approxBytes}) after which a chunk ends. */
  static final long CHUNK_BYTES = 256 << 10;

  /** The rows of one table as of the snapshot position; rows are shared and immutable. */
  record TableRows(TableSchema schema, List<ObjectNode> rows) {}

  private final Subscriber session;
  private final List<TableRows> tables;
  private final long position;
  private final ServerMetrics metrics;
  /** The table being written (index into {@link #tables}) and its visible rows; null = not begun. */
  private int table;
  private List<ObjectNode> rows;
  private int offset;
  private long startNanos;

  SnapshotFrames(Subscriber session, List<TableRows> tables, long position, ServerMetrics metrics) {
    this.session = session;
    this.tables = tables;
    this.position = position;
    this.metrics = metrics;
  }

  @Override
  public Message next() {
    if (table == tables.size()) {
      return null;
    }
    TableRows t = tables.get(table);
    String name = t.schema().id().qualified();
    List<String> pk = t.schema().primaryKey();
    if (rows == null) {
      startNanos = System.nanoTime();
      // only the rows and columns the session's policy lets it see
      rows = session.policy().snapshotRows(t.rows(), pk);
      offset = 0;
      return new Message.SnapshotBegin(name, session.policy().project(t.schema().columns(), pk), pk, position,
          rows.size());
    }
    if (offset < rows.size()) {
      int end = offset;
      long bytes = 0;
      int limit = Math.min(rows.size(), offset + CHUNK_ROWS);
      while (end < limit && (end == offset || bytes < CHUNK_BYTES)) {
        bytes += ResumeBuffer.approxBytes(rows.get(end++));
      }
      List<ObjectNode> chunk = rows.subList(offset, end);
      offset = end;
      return new Message.SnapshotRows(name, chunk);
    }
    long tookNanos = System.nanoTime() - startNanos;
    metrics.snapshotServed(name, rows.size(), Duration.ofNanos(tookNanos));
    LOG.info("snapshot served: {} rows of {} at position {} to {} in {} ms", rows.size(), name, position,
        session, TimeUnit.NANOSECONDS.toMillis(tookNanos));
    rows = null;
    table++;
    return new Message.SnapshotEnd(name, position);
  }
}
