package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.TableLockWaits;
import io.tablecast.server.tail.WholeReads;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The whole tables one read in a transaction of {@link PgChangeSource} reads again (resyncs), and
 * their locks. A table pending whose lock is held ({@link TableLockWaits}: DDL queued on it, or the
 * read denied to the server's user) is left pending and stale until the probe is granted it;
 * decided once per read, since the probe may free it while the read runs. The others are locked
 * before the read's snapshot, each lock waited for at most {@link TableLockWaits#WAIT}. A table the
 * read finds it must read again only in its snapshot (a plan changed by an {@code ALTER TABLE} or
 * {@code ALTER TYPE}, a re-read mark of a partition truncated) is read there too, its lock waited
 * for as long at most: when it is not granted, the read is rolled back and tried again without the
 * table, which waits beside the tail as any held table. Tail thread only.
 */
final class PgReReads {
  private final Supplier<CapturePlan> plan;
  private final PgPendingResyncs pending;
  private final TableLockWaits lockWaits;
  private final DdlLocks ddlLocks;

  /** The tables re-read whole within a poll, and the one read now. */
  private final WholeReads wholeReads;

  PgReReads(
      Supplier<CapturePlan> plan,
      PgPendingResyncs pending,
      TableLockWaits lockWaits,
      DdlLocks ddlLocks,
      WholeReads wholeReads) {
    this.wholeReads = wholeReads;
    this.plan = plan;
    this.pending = pending;
    this.lockWaits = lockWaits;
    this.ddlLocks = ddlLocks;
  }

  /**
   * Locks {@code tables} in {@code c}'s transaction before the snapshot of a whole read of every
   * table while serving (after a failover, a restore, a restart), each lock waited for at most
   * {@link TableLockWaits#WAIT}. A table held ({@link TableLockWaits}: DDL queued on it, or its
   * read denied to the server's user), or in {@code leftOut}, is left out of the read: pending, and
   * stale until it is read again beside the tail. The read waited for every lock as long as it took
   * (an {@code ALTER TABLE} queued behind an open transaction stopped every table's changes), and
   * one table the user may not read failed it at every try. Returns the tables locked, or null when
   * one was refused: the transaction is rolled back, the table held and added to {@code leftOut},
   * and the caller begins again without it.
   */
  List<TableSchema> lockForWholeRead(Connection c, List<TableSchema> tables, Set<TableId> leftOut)
      throws SQLException {
    List<TableSchema> toRead = new ArrayList<>();
    for (TableSchema t : tables) {
      if (leftOut.contains(t.id()) || lockWaits.waiting(t.id())) {
        leftOut.add(t.id());
        leaveOut(t.id(), null);
      } else {
        toRead.add(t);
      }
    }
    PgOutboxQueries.Refusal refused =
        PgOutboxQueries.lockBeforeSnapshotWithin(
            c, toRead.stream().map(TableSchema::id).toList(), ddlLocks);
    if (refused == null) {
      return toRead;
    }
    PgOutboxQueries.rollbackQuietly(c);
    leftOut.add(refused.table());
    leaveOut(refused.table(), refused.cause());
    return null;
  }

  /** {@code table} waits beside the tail for its re-read, stale ({@code cause}: why it waits). */
  private void leaveOut(TableId table, SQLException cause) {
    pending.add(table.qualified());
    lockWaits.holdWholeRead(table, true, cause);
  }

  /** The re-reads of the read about to begin. */
  Read begin() {
    return new Read();
  }

  /** One read's re-reads. */
  final class Read {
    /** To read in the read's snapshot, by qualified name; the read may add to it. */
    final Set<String> tables = pending.toRead(); // but those gone under their name

    /** Held for their lock: left pending. */
    private final Set<String> waiting = new LinkedHashSet<>();

    /** Those locked before the snapshot. */
    private final Set<String> locked;

    private final List<TableId> read = new ArrayList<>();

    private Read() {
      holdWaiting();
      locked = Set.copyOf(tables);
    }

    /** The tables whose locks the read takes before its snapshot. */
    List<TableId> toLock() {
      List<TableId> ids = new ArrayList<>();
      for (String table : locked) {
        RowNormalizer n = plan.get().normalizer(table);
        if (n != null) {
          ids.add(n.table().id());
        }
      }
      return ids;
    }

    /** True when {@code table} is re-read whole by this read (else a range of it may be read). */
    boolean reReads(TableId table) {
      return tables.contains(table.qualified());
    }

    /**
     * Reads {@link #tables} whole in {@code c}'s transaction, after the events of its snapshot;
     * null when the lock of one found only in the snapshot was not granted (or its read denied):
     * the transaction is rolled back and the table held, to be read again once it may.
     */
    List<CommittedBatch.TableRead> read(Connection c) throws SQLException {
      Set<String> late = new LinkedHashSet<>(tables);
      late.removeAll(locked);
      if (!late.isEmpty()) {
        pending.addAll(late); // a failed read must still re-read them
        holdWaiting();
        PgOutboxQueries.limitLockWaits(c, ddlLocks);
      }
      List<CommittedBatch.TableRead> reads = new ArrayList<>();
      for (String table :
          tables) { // in the same snapshot: the image after the events must equal it
        RowNormalizer n = plan.get().normalizer(table);
        if (n == null) {
          continue;
        }
        TableSchema t = n.table();
        try {
          reads.add(
              new CommittedBatch.TableRead(
                  t,
                  OutboxRows.readTable(plan.get(), c, t, wholeReads),
                  CommittedBatch.Purpose.RESYNC));
        } catch (SQLException e) {
          if (!late.contains(table) || !(lockWaits.timedOut(e) || lockWaits.denied(e))) {
            throw e;
          }
          PgOutboxQueries.rollbackQuietly(c); // read again at the next poll, without the table
          lockWaits.holdWholeRead(t.id(), true, e);
          return null;
        }
        read.add(t.id());
      }
      if (!late.isEmpty()) {
        PgOutboxQueries.liftLockWaitLimit(c);
      }
      return reads;
    }

    /** The read succeeded: what it read is no longer pending, nor held. */
    void done() {
      pending.clear(waiting::contains);
      read.forEach(lockWaits::released);
    }

    /** Moves the tables held by {@link #lockWaits} to {@link #waiting}: stale meanwhile. */
    private void holdWaiting() {
      for (String table : tables) {
        RowNormalizer n = plan.get().normalizer(table);
        if (n != null && lockWaits.waiting(n.table().id())) {
          waiting.add(table);
          lockWaits.holdWholeRead(n.table().id(), true, null);
        }
      }
      tables.removeAll(waiting);
    }
  }
}
