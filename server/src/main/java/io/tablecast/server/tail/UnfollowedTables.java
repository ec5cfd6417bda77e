package io.tablecast.server.tail;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cached tables whose capture is found incomplete while serving (a trigger missing or disabled
 * that could not be repaired, a primary key changed while {@code install_triggers} is off): their
 * changes may not reach the outbox, so their mirrors may differ from them. The capture watches (and
 * MySQL/MariaDB's {@code AlteredTables}) say when a table cannot be followed and when it is
 * followed again (as it is re-read); the change source hands each transition to the hub with its
 * next batch ({@link CommittedBatch.Staleness}, cause {@value #CAUSE}), which tells the table's
 * clients, {@code /health} and the metrics. Thread-safe: the MySQL/MariaDB capture watch runs on a
 * thread of its own.
 */
public final class UnfollowedTables {

  /**
   * The cause of this staleness, beside other causes of the same table (a row that could not be
   * read).
   */
  static final String CAUSE = "capture";

  /**
   * The ERROR logged (with the table and why) when an ALTER TABLE left a table that cannot be
   * cached as configured (a column its {@code columns:} names renamed or dropped).
   */
  public static final String NOT_CACHEABLE_LOG =
      "Table {} was altered and can no longer be cached as configured: {}. Its mirrors keep their"
          + " rows and are stale; the server reads the other tables on, and follows it again once"
          + " it can (the change undone, or its cached_tables entry changed and the server"
          + " restarted)";

  /** What the mirrors of such a table are told ({@link #NOT_CACHEABLE_LOG}). */
  public static String notCacheable(String table, String why) {
    return "table "
        + table
        + " was altered and can no longer be cached as configured ("
        + why
        + "): the mirror keeps its last rows, and follows it again once it can";
  }

  /** Per table, the reason last reported. */
  private final Map<String, String> reasons = new ConcurrentHashMap<>();

  /**
   * The tables among them that no longer exist under their name (dropped, or renamed away): the
   * tail reads nothing of them (no rows, no re-read, no reconciliation range), so that one such
   * table does not stop the others' changes.
   */
  private final Set<String> gone = ConcurrentHashMap.newKeySet();

  /** Transitions not yet handed to the hub, in the order they happened. */
  private final List<CommittedBatch.Staleness> pending = new ArrayList<>();

  /**
   * {@code table} cannot be followed now, because of {@code reason} (said again only when it
   * changes).
   */
  public void cannotFollow(TableId table, String reason) {
    Objects.requireNonNull(reason, "reason");
    String name = table.qualified();
    if (!reason.equals(reasons.put(name, reason))) {
      queue(new CommittedBatch.Staleness(name, CAUSE, reason));
    }
  }

  /**
   * {@code table} no longer exists under its name: unfollowed, and left out of the tail's reads
   * until {@link #followedAgain}.
   */
  public void gone(TableId table, String reason) {
    gone.add(table.qualified());
    cannotFollow(table, reason);
  }

  /**
   * {@code table} exists again: the tail reads it again (its re-read first), while it stays stale
   * until {@link #followedAgain}.
   */
  public void back(TableId table) {
    gone.remove(table.qualified());
  }

  /**
   * {@code tables} but those {@link #gone}: what a whole read of every table reads (after a
   * failover, a restart of the database, an outbox that began again). It read a gone table too,
   * which failed it at every try, and no change of any table reached the clients; the gone table's
   * mirrors keep their rows, stale, until it is back and read again.
   */
  public List<TableSchema> present(List<TableSchema> tables) {
    return tables.stream().filter(t -> !gone.contains(t.id().qualified())).toList();
  }

  /** True while {@code table} (qualified name) is {@link #gone}. */
  public boolean isGone(String table) {
    return gone.contains(table);
  }

  /**
   * {@code table}'s capture is complete again and it is being re-read: its mirrors will follow it.
   */
  public void followedAgain(TableId table) {
    gone.remove(table.qualified());
    if (reasons.remove(table.qualified()) != null) {
      queue(new CommittedBatch.Staleness(table.qualified(), CAUSE, null));
    }
  }

  /** True while {@code table} cannot be followed. */
  public boolean isUnfollowed(TableId table) {
    return reasons.containsKey(table.qualified());
  }

  private synchronized void queue(CommittedBatch.Staleness s) {
    pending.add(s);
  }

  /**
   * {@code batch} with the transitions not handed over yet (and forgets them); a batch of only
   * those when {@code batch} is empty. The transitions that make a table followed again come with,
   * or after, the batch that re-reads it.
   */
  public synchronized CommittedBatch attachTo(CommittedBatch batch) {
    if (pending.isEmpty()) {
      return batch;
    }
    List<CommittedBatch.Staleness> staleness = new ArrayList<>(batch.staleness());
    staleness.addAll(pending);
    pending.clear();
    return new CommittedBatch(batch.events(), batch.captureMillis(), batch.tableReads(), staleness);
  }
}
