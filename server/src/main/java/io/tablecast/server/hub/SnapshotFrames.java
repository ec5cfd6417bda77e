package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.metrics.ServerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot of one subscribe as frames, table after table at one position: {@code
 * snapshot_begin}, chunks of at most {@link #CHUNK_ROWS} rows and about {@link #CHUNK_BYTES} (a
 * chunk ends at whichever comes first, with at least one row), then {@code snapshot_end}. Bounding
 * chunks by bytes keeps one frame of large rows from overshooting the write buffer (and {@code
 * max_pending_bytes}) by megabytes. The image's rows are in the row form and travel in it ({@link
 * PackedRow}: bytes to a version-3 session, JSON text written from them to a WebSocket); a policy's
 * column list re-encodes them in the layout of the columns it allows ({@link JsonEdge#project}) as
 * the chunk is cut, on the catch-up executor at the client's pace (never on the hub thread, never
 * the whole table at once). With a row filter, the rows the session may see are found when the
 * table begins, reading only the filter column of each row, so that {@code snapshot_begin} can say
 * how many follow. Written by a {@link CatchUpSender}.
 */
final class SnapshotFrames implements CatchUpSender.Frames {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotFrames.class);

  /** Rows per {@link Message.SnapshotRows} frame. */
  static final int CHUNK_ROWS = 1000;

  /** Approximate bytes of rows ({@link ResumeBuffer#approxBytes}) after which a chunk ends. */
  static final long CHUNK_BYTES = 256 << 10;

  /**
   * The rows of one table as of the snapshot position, in {@code form}; rows are shared and
   * immutable.
   */
  record TableRows(TableSchema schema, RowForm form, List<byte[]> rows, boolean shaped) {}

  private final Subscriber session;
  private final List<TableRows> tables;
  private final long position;
  private final ServerMetrics metrics;

  /**
   * The table being written (index into {@link #tables}) and its visible rows; null = not begun.
   */
  private int table;

  private List<byte[]> rows;

  /**
   * The rows not yet sent, walked in order (the image's rows are a paged view, which an iterator
   * walks without first packing them into an array of their own).
   */
  private Iterator<byte[]> unsent;

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
      rows = visible(t, session.policy()); // only the rows the session's policy lets it see
      unsent = rows.iterator();
      offset = 0;
      return new Message.SnapshotBegin(
          name,
          session.policy().project(name, t.schema().columns(), pk),
          pk,
          position,
          rows.size());
    }
    if (offset < rows.size()) {
      int limit = Math.min(rows.size(), offset + CHUNK_ROWS);
      List<ObjectNode> chunk = new ArrayList<>(limit - offset);
      long bytes = 0;
      while (offset < limit && (chunk.isEmpty() || bytes < CHUNK_BYTES)) {
        // the image's bytes, or the row in the layout of the only columns the session may see
        ObjectNode row =
            JsonEdge.project(PackedRow.of(t.form(), unsent.next()), session.policy(), name, pk);
        offset++;
        bytes += JsonEdge.approxBytes(row);
        chunk.add(row);
      }
      return new Message.SnapshotRows(name, chunk);
    }
    long tookNanos = System.nanoTime() - startNanos;
    metrics.snapshotServed(name, rows.size(), Duration.ofNanos(tookNanos));
    LOG.info(
        "snapshot served: {} rows of {} at position {} to {} in {} ms",
        rows.size(),
        name,
        position,
        session,
        TimeUnit.NANOSECONDS.toMillis(tookNanos));
    rows = null;
    unsent = null;
    table++;
    return new Message.SnapshotEnd(name, position);
  }

  /**
   * The rows of {@code t} that {@code policy}'s row filter lets through: all of them without one.
   */
  private static List<byte[]> visible(TableRows t, SessionPolicy policy) {
    String table = t.schema().id().qualified();
    if (!policy.filters(table) || (t.shaped() && policy.filterColumn() == null)) {
      return t.rows();
    }
    int column = policy.filterColumn() == null ? -2 : t.form().indexOf(policy.filterColumn());
    boolean shaped =
        !t.shaped() && policy.shape(table) != null && policy.shape(table).filter() != null;
    List<byte[]> out = new ArrayList<>();
    for (byte[] row : t.rows()) {
      if ((column == -2
              || policy.matchesValue(column < 0 ? null : t.form().valueToNode(row, column)))
          && (!shaped || policy.shapeMatches(table, PackedRow.of(t.form(), row)))) {
        out.add(row);
      }
    }
    return out;
  }
}
