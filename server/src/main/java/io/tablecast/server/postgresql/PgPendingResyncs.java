package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.MissingTableException;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.DriftCheck;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The cached tables {@link PgChangeSource} re-reads whole at its next read in a transaction, in
 * that read's snapshot, and those it first describes again there. A table is re-read when a client
 * asks ({@link PgChangeSource#resync}), when the capture watch says so ({@link
 * PgCaptureWatch#runIfDue}: a partition or child joined or left, a trigger was repaired), when
 * describing it again changed its columns in the plan ({@link PgColumnChanges#describedAgain}), or
 * when a type its values are made of was redefined ({@link PgValueTypes}). A table is described
 * again when its catalog changed: found by the look at the catalog every {@code
 * capture_check_interval} ({@link PgColumnChanges#alteredSinceLastLook}), or by a reconciliation
 * range read in a snapshot where the catalog describes the table otherwise ({@link
 * DriftCheck.PassStart}). They stay pending until a read succeeds: a failed read leaves them to the
 * next. A table gone under its name is neither re-read nor described, and reconciliation passes it
 * by. Confined to the tail thread.
 */
final class PgPendingResyncs implements DriftCheck.PassStart {

  /** The source's current plan: a column change replaces it. */
  private final Supplier<CapturePlan> plan;

  private final PgColumnChanges columnChanges;
  private final PgValueTypes valueTypes = new PgValueTypes();
  private final UnfollowedTables unfollowed;

  /** Tables to re-read in the next read's snapshot, by qualified name. */
  private final Set<String> pending = new LinkedHashSet<>();

  /**
   * Tables whose catalog changed (found by {@link PgColumnChanges#alteredSinceLastLook}), described
   * again at the next read.
   */
  private final Set<TableId> altered = new LinkedHashSet<>();

  PgPendingResyncs(
      Supplier<CapturePlan> plan, PgColumnChanges columnChanges, UnfollowedTables unfollowed) {
    this.plan = plan;
    this.columnChanges = columnChanges;
    this.unfollowed = unfollowed;
  }

  /**
   * Re-reads {@code table} (qualified name) in the next read's snapshot; a name not cached is
   * skipped there.
   */
  void add(String table) {
    pending.add(table);
  }

  /** {@link #add} for each of {@code tables}. */
  void addAll(Collection<String> tables) {
    pending.addAll(tables);
  }

  @Override
  public TableSchema begin(TableSchema known) {
    // the range's own snapshot is compared with the catalog (alteredDuringPass); a
    // table gone under its name has none to read
    String name = known.id().qualified();
    return unfollowed.isGone(name) || columnChanges.uncacheable(name) ? null : known;
  }

  @Override
  public void alteredDuringPass(TableSchema known) {
    altered.add(known.id()); // described again at the next read, in its snapshot, and re-read
  }

  /**
   * True when the next read has no table to re-read or describe again, and no look at the catalog
   * is due ({@link PgColumnChanges#lookDue}).
   */
  boolean nothingDue() {
    return pending.isEmpty() && altered.isEmpty() && !columnChanges.lookDue();
  }

  /** The tables to re-read in the read about to begin, by qualified name. */
  Set<String> toRead() {
    Set<String> resync = new LinkedHashSet<>(pending);
    // nothing to read under its name, or not as configured: it would fail the read
    resync.removeIf(t -> unfollowed.isGone(t) || columnChanges.uncacheable(t));
    return resync;
  }

  /**
   * In the read's transaction {@code c}, before its rows are read: looks at the catalog when due,
   * describes again the tables whose catalog changed and those {@code resync} holds (a table read
   * whole is read in its columns of this snapshot, though the look has not seen a column dropped
   * yet), and adds to {@code resync} (re-read in this snapshot) those whose plan changed.
   */
  void describeAltered(Connection c, Set<String> resync) throws SQLException {
    if (columnChanges.lookDue()) {
      for (TableId id : valueTypes.redefinedSinceLastLook(c, plan.get().tables())) {
        if (!unfollowed.isGone(id.qualified())) {
          resync.add(id.qualified());
          pending.add(id.qualified()); // a failed read must still re-read it
        }
      }
      altered.addAll(columnChanges.alteredSinceLastLook(c));
    }
    for (String table : resync) { // read whole: in the layout of this snapshot (a column dropped)
      RowNormalizer n = plan.get().normalizer(table);
      if (n != null) {
        altered.add(n.table().id());
      }
    }
    for (TableId id : altered) { // described in this read's transaction, before its rows are read
      RowNormalizer n = plan.get().normalizer(id.qualified());
      if (n != null && !unfollowed.isGone(id.qualified()) && describedAgain(c, n.table())) {
        resync.add(id.qualified());
        pending.add(id.qualified()); // the plan changed: a failed read must still re-read it
      }
    }
    altered.clear();
  }

  /**
   * The read that re-read them succeeded: none is pending any more but those {@code waiting} holds
   * for (their lock not granted: re-read once it is).
   */
  void clear(Predicate<String> waiting) {
    pending.removeIf(t -> !waiting.test(t));
  }

  /**
   * In the transaction {@code c} of a whole read of every table (the start's, a retry of it, and
   * the one after the database changed: a failover, a restore, a restart), before its rows are
   * read: describes each of {@code tables} again, since DDL that no look at the catalog has seen
   * (committed after the start described the tables, or between two tries of its snapshot), or a
   * backup's older layout, may have changed any of them. Returns the tables to read, as the plan
   * describes them now: those gone under their names and those that cannot be cached as configured
   * (stale, with why) left out. A column dropped meanwhile failed every such read, and no change of
   * any table reached the clients; a column added or a key widened before the start's snapshot was
   * never seen, since {@link #catalogAsRead} learned the catalog as it was then.
   */
  List<TableSchema> describedForWholeRead(Connection c, List<TableSchema> tables)
      throws SQLException {
    Set<TableId> ids = new HashSet<>();
    for (TableSchema t : tables) {
      describedAgain(c, t);
      ids.add(t.id());
    }
    return unfollowed.present(plan.get().tables()).stream()
        .filter(t -> ids.contains(t.id()) && !columnChanges.uncacheable(t.id().qualified()))
        .toList();
  }

  /**
   * In the transaction of a whole read of every table, once its snapshot began: learns each table's
   * catalog fingerprint and the types its values are made of as that snapshot sees them, which the
   * next look compares with. The first look learned them instead, so DDL committed between the
   * start's read and that look that no row shows (a primary key dropped, a column added to a table
   * nobody writes, an enum label renamed) was never seen: a table stayed cached by a key it no
   * longer had, or its mirrors kept the old label, saying nothing.
   */
  void catalogAsRead(Connection c) throws SQLException {
    columnChanges.alteredSinceLastLook(c); // what changed before is read whole by this read
    valueTypes.redefinedSinceLastLook(c, plan.get().tables());
  }

  /** {@link PgColumnChanges#describedAgain}; a table gone under its name is left out from now. */
  private boolean describedAgain(Connection c, TableSchema table) throws SQLException {
    try {
      return columnChanges.describedAgain(c, table);
    } catch (MissingTableException e) {
      unfollowed.gone(table.id(), e.whileServing());
      return false;
    }
  }
}
