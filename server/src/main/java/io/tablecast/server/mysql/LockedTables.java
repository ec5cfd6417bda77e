package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.TableLockWaits;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * MySQL/MariaDB: the cached tables whose changed rows the tail could not read because their
 * metadata lock was not granted within {@link #WAIT_SECONDS} s ({@link TableLockWaits}), and the
 * keys of those rows.
 *
 * <p>The tail reads the rows a batch changed by key, in the batch's snapshot; behind DDL queued on
 * a table, that read queued too, with every other table's changes. The read of a table's changed
 * rows therefore waits at most {@link #WAIT_SECONDS} s for its metadata lock ({@link
 * MysqlFlavor#boundedLockWait}); a table not granted it is held: its changed keys are kept, it is
 * stale for its clients, and the tail reads the others on without trying it again. Once the probe
 * is granted the lock, the next read reads the kept keys with its own, in its snapshot (a key's row
 * as it is then, as for any changed key), and the table is followed again. A whole read of a table
 * (a resync) takes the lock first, bounded the same way ({@link #lockFor}). Tail thread, but for
 * the probe's marks.
 */
final class LockedTables implements AutoCloseable {

  /** The longest the tail's read of one table waits for its metadata lock, in seconds. */
  static final int WAIT_SECONDS = (int) TableLockWaits.WAIT.toSeconds();

  private final MysqlFlavor flavor;
  private final TableLockWaits waits;

  /** Per held table, the key images of its changes not read yet, in the order first seen. */
  private final Map<TableId, Set<String>> kept = new LinkedHashMap<>();

  LockedTables(MysqlFlavor flavor, DataSource pool, Duration answerTimeout) {
    this.flavor = flavor;
    this.waits =
        new TableLockWaits(
            pool,
            new MysqlDdlLocks(),
            (c, table) -> {
              try (Statement s = c.createStatement()) {
                s.executeQuery(probe(table)).close(); // autocommit: the lock ends with it
              }
            },
            answerTimeout);
  }

  /**
   * True when a bounded read of a table failed for the table alone: its metadata lock wait ran out
   * ({@code ER_LOCK_WAIT_TIMEOUT}), or the server's user may not read it (a privilege revoked). The
   * statement failed, not the snapshot's transaction.
   */
  boolean refused(SQLException e) {
    return waits.timedOut(e) || waits.denied(e);
  }

  /** True while {@code table} is held and its lock was not seen free since: not to be read now. */
  boolean waiting(TableId table) {
    return waits.waiting(table);
  }

  /** True while any table is held (reconciliation ranges wait: its image lacks kept changes). */
  boolean anyHeld() {
    return waits.anyHeld();
  }

  /** True when a held table's lock was seen free: the next read should read its kept keys. */
  boolean readDue() {
    return waits.readDue();
  }

  /** Per held table that is free now, its kept key images (copies: kept until {@link #after}). */
  Map<TableId, List<String>> freeKeys() {
    if (!waits.readDue()) {
      return Map.of(); // every read asks: nothing made while no table is free
    }
    Map<TableId, List<String>> out = new LinkedHashMap<>();
    for (TableId t : waits.freeTables()) {
      out.put(t, new ArrayList<>(kept.getOrDefault(t, Set.of())));
    }
    return out;
  }

  /** {@code table} is still held: keeps {@code images} with the keys kept before. */
  void keep(TableId table, List<String> images) {
    kept.computeIfAbsent(table, t -> new LinkedHashSet<>()).addAll(images);
  }

  /**
   * The read of {@code table} was {@link #refused} ({@code cause}): keeps {@code images}, and holds
   * the table, stale.
   */
  void hold(TableId table, List<String> images, SQLException cause) {
    keep(table, images);
    boolean reRead = images.isEmpty(); // a whole read of the table (a resync) waits
    String what = reRead ? "its re-read waits" : "its changed rows are kept";
    if (waits.denied(cause)) {
      waits.deny(
          table,
          what,
          TableLockWaits.deniedReason(
              table,
              reRead
                  ? "table " + table.qualified() + " is to be read again whole, and cannot be now"
                  : "the changed rows of " + table.qualified() + " cannot be read now"),
          cause);
    } else {
      waits.hold(table, what, reRead ? reReadReason(table) : reason(table));
    }
  }

  /**
   * A read succeeded: it read the changed rows of {@code changed}'s tables, kept ones included, and
   * the tables {@code resyncs} whole, but for {@code failed}. Those are followed again.
   */
  void after(ChangedRows changed, Collection<TableSchema> resyncs, Collection<TableId> failed) {
    if (!waits.anyHeld()) {
      return; // the common case, after every read: nothing to release
    }
    for (TableId t : changed.readTables()) {
      release(t);
    }
    for (TableSchema t : resyncs) {
      if (!failed.contains(t.id())) {
        release(t.id()); // read whole: what was kept is in it
      }
    }
  }

  /**
   * Takes {@code table}'s metadata lock in {@code c}'s transaction, waiting at most {@link
   * #WAIT_SECONDS}, so that a whole read of it that follows cannot wait for DDL; when not granted
   * (or the server's user may not read the table), holds the table (its re-read waits) and returns
   * false. Any other failure is the read's to meet.
   */
  boolean lockFor(Connection c, TableId table) {
    try (Statement s = c.createStatement()) {
      s.executeQuery(probe(table)).close();
      return true;
    } catch (SQLException e) {
      if (refused(e)) {
        hold(table, List.of(), e);
        return false;
      }
      return true;
    }
  }

  /**
   * Of {@code tables}, those whose metadata lock {@code c}'s transaction was granted ({@link
   * #lockFor}), for a whole read of every table while serving (after a failover, a restore, a
   * restart). One held already, or not granted its lock now (DDL queued on it, or its read denied
   * to the server's user), is left out and added to {@code leftOut}, to be re-read once it may:
   * stale meanwhile. That read waited for every table's lock as long as it took, and no change of
   * any table reached the clients.
   */
  List<TableSchema> lockForWholeRead(Connection c, List<TableSchema> tables, Set<TableId> leftOut) {
    List<TableSchema> locked = new ArrayList<>();
    for (TableSchema t : tables) {
      if (!waits.waiting(t.id()) && lockFor(c, t.id())) {
        locked.add(t);
      } else {
        leftOut.add(t.id());
      }
    }
    return locked;
  }

  /**
   * Every table but {@code leftOut} was read again whole (a snapshot): nothing of theirs is kept or
   * held any more.
   */
  void allReadBut(Set<TableId> leftOut) {
    kept.keySet().retainAll(leftOut);
    waits.allReleasedBut(leftOut);
  }

  /** {@link TableLockWaits#describe}. */
  String describe(List<TableId> tables) {
    return waits.describe(tables);
  }

  /** The staleness transitions since the last call, for the next batch. */
  List<CommittedBatch.Staleness> takeTransitions() {
    return waits.takeTransitions();
  }

  /** What the clients of a held table are told. */
  static String reason(TableId table) {
    return "the changed rows of "
        + table.qualified()
        + " cannot be read now: its metadata lock is taken or waited for by DDL (an ALTER TABLE"
        + " waiting for an open transaction); the mirror keeps its rows, and follows it again once"
        + " the lock is granted";
  }

  /** What the clients of a table whose whole read waits for its metadata lock are told. */
  static String reReadReason(TableId table) {
    return "table "
        + table.qualified()
        + " is to be read again whole, and its metadata lock is taken or waited for by DDL (an"
        + " ALTER TABLE waiting for an open transaction): the mirror keeps its rows, and is brought"
        + " up to date once the lock is granted";
  }

  private void release(TableId table) {
    kept.remove(table);
    waits.released(table);
  }

  private String probe(TableId table) {
    return flavor.boundedLockWait(
        "SELECT 1 FROM " + MysqlIdentifiers.quote(table) + " LIMIT 0", WAIT_SECONDS);
  }

  @Override
  public void close() {
    waits.close();
  }
}
