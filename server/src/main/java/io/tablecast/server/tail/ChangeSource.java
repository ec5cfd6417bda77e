package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.TableSchema;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The database side of the server: a consistent snapshot of the cached tables, then the
 * committed changes after it, read from the outbox without loss or duplication.
 *
 * <p>Not thread-safe: one thread calls {@link #snapshot} once, then {@link #poll} in a loop.
 */
public interface ChangeSource extends AutoCloseable {

  /** The cached tables, described and validated from the catalog. */
  List<TableSchema> tables();

  /**
   * Reads every row of every cached table in one consistent read and positions the source
   * exactly after it: the first {@link #poll} returns precisely the changes that committed
   * after the snapshot.
   */
  void snapshot(SnapshotSink sink) throws SQLException;

  /**
   * Waits up to {@code maxWait} for committed changes after the current position and returns
   * them as whole transactions, or {@link CommittedBatch#EMPTY}. A database error leaves the
   * position unchanged, so the caller may retry.
   */
  CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException;

  @Override
  void close();

  /** Receives snapshot rows. */
  @FunctionalInterface
  interface SnapshotSink {
    void row(TableSchema table, ObjectNode row);
  }
}
