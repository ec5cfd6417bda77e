package io.tablecast.server.tail;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The database side of the server: a consistent snapshot of the cached tables, then the committed
 * changes after it, read from the outbox without loss or duplication.
 *
 * <p>Not thread-safe: one thread calls {@link #snapshot} once, then {@link #poll} in a loop.
 */
public interface ChangeSource extends AutoCloseable {

  /** The cached tables, described and validated from the catalog. */
  List<TableSchema> tables();

  /**
   * Reads every row of every cached table in one consistent read and positions the source exactly
   * after it: the first {@link #poll} returns precisely the changes that committed after the
   * snapshot.
   */
  void snapshot(SnapshotSink sink) throws SQLException;

  /**
   * Waits up to {@code maxWait} for committed changes after the current position and returns them
   * as whole transactions, or {@link CommittedBatch#EMPTY}. A database error leaves the position
   * unchanged, so the caller may retry.
   */
  CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException;

  /**
   * Has the cached table {@code table} (qualified name) re-read whole in the consistent read of a
   * later poll, whose batch then carries a {@link CommittedBatch.Purpose#RESYNC} read of it: the
   * table's image after that batch's events must equal it. The tail loop asks for one when the hub
   * could not apply an event of the table to its image. A name that is not cached is ignored.
   */
  void resync(String table);

  /**
   * The position after the last {@link #poll} (or {@link #snapshot}) as text a later run of the
   * same source can resume after ({@link #resumeAfter}); null when this source cannot resume from a
   * position (it then takes a snapshot again).
   */
  default String cursor() {
    return null;
  }

  /**
   * Instead of {@link #snapshot}: positions the source exactly after {@code cursor}, a {@link
   * #cursor()} of an earlier run, so that the first poll returns precisely the changes committed
   * after it. The outbox must still hold them (pruned only up to what was {@link #acknowledged}).
   *
   * @throws UnsupportedOperationException when {@link #cursor()} is always null
   * @throws IllegalArgumentException when {@code cursor} is not one this source can resume after
   *     (another source's, or a position recorded as not resumable); either way the caller takes a
   *     snapshot instead
   */
  default void resumeAfter(String cursor) throws SQLException {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " cannot resume after a cursor; take a snapshot");
  }

  /**
   * Everything up to {@code cursor} is durably stored downstream (a NATS stream acknowledged it):
   * from now on the outbox is pruned only up to the last cursor acknowledged, never up to a
   * position read but not stored yet. Sources without cursors ignore it.
   */
  default void acknowledged(String cursor) {}

  /**
   * The lowest outbox position this source may still read (PostgreSQL: a transaction id;
   * MySQL/MariaDB: an outbox id), which other servers on the outbox must not prune; empty while it
   * does not know (before its snapshot). Any thread.
   */
  default OptionalLong neededFrom() {
    return OptionalLong.empty();
  }

  /**
   * The longest pause between two attempts after reads failed: the tail doubles its pause from 100
   * ms up to this. A database is spared a storm of connection attempts while it recovers (10 s); a
   * source whose failed reads cost the remote side nothing may retry sooner, and so follows sooner
   * once it is back.
   */
  default Duration longestRetryPause() {
    return Duration.ofMillis(TailLoop.MAX_BACKOFF_MILLIS);
  }

  /**
   * Read-your-writes: the barrier whose requests the next read that begins after them answers (the
   * tail completes them once that read's batch is in the sink); empty when this source does not
   * read the database itself (a NATS stream: what the capture process has not published yet is
   * beyond its sight).
   */
  default Optional<ReadBarrier> readBarrier() {
    return Optional.empty();
  }

  /**
   * Who waits for a lock on any of {@code tables} and who may hold it, when anyone waits (DDL
   * queued behind an open transaction holds up every read of its table, a snapshot's too); null
   * when nobody does, or the source cannot tell. Best effort, on a connection of its own.
   */
  default String lockWaits(List<TableSchema> tables) {
    return null;
  }

  /**
   * How long a {@link #poll} or {@link #snapshot} read may go without returning before every table
   * is said stale and the source is asked whether the read's answer was lost ({@code
   * source.answer_timeout}).
   */
  default Duration answerTimeout() {
    return SourceConfig.DEFAULT_ANSWER_TIMEOUT;
  }

  /**
   * The whole-table read the poll in progress is making now (a table re-read while serving), as its
   * progress line; null when it makes none. Any thread: when a poll goes {@link #answerTimeout}
   * without returning, it is the reason every table is stale.
   */
  default String wholeReadNow() {
    return null;
  }

  /**
   * Called from another thread while a {@link #poll} has gone long unanswered: when the database
   * says the read's session has waited for its client for at least {@code idleSeconds} (its answer,
   * or its request, was lost on the way), aborts the read's connection, so that the poll fails and
   * is made again on a new one, and returns what it found, for the log. Null when it left the read
   * alone, as by default.
   *
   * @throws SQLException when the database could not be asked
   */
  default String abandonReadIfAnswerLost(long idleSeconds) throws SQLException {
    return null;
  }

  @Override
  void close();

  /** Receives snapshot rows. */
  @FunctionalInterface
  interface SnapshotSink {
    /**
     * One row of {@code table}, in the row form of that table version ({@link
     * io.tablecast.protocol.row.RowForm}).
     */
    void row(TableSchema table, byte[] row);

    /**
     * Before the first row: what the source knows of each table's size (row estimate, first rows),
     * so that tables too big for the heap are refused before they are read. A source without a
     * catalog may skip it. Nothing by default.
     *
     * @throws HeapTooSmallException when the tables' images would not fit in the heap
     */
    default void sizes(List<TableSize> tables) {}

    /** {@code table} is about to be read (its rows follow). Nothing by default. */
    default void reading(TableSchema table) {}
  }
}
