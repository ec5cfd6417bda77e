package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.MissingTableException;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: what changes the cached tables without firing a trigger, found in the catalog by
 * each look of the capture check ({@link MysqlCaptureWatch}): a table altered (its description
 * differs from the plan's: {@link CatalogFingerprints}), rows replaced (a table or a partition
 * truncated, exchanged or dropped: {@link RecreatedTables}), and the outbox's ids begun again below
 * those the tail read ({@link OutboxRenumbering}). The tail takes each up at its next poll: an
 * altered table through {@link #takeAltered} ({@link AlteredTables}), a table whose rows were
 * replaced as a resync, a renumbered outbox through {@link #takeOutboxRenumbered}.
 */
final class UntriggeredChanges {
  private static final Logger LOG = RecentEvents.logger(UntriggeredChanges.class);

  private final UnfollowedTables unfollowed;

  /** Has a table whose rows were replaced re-read with the next batch. */
  private final Consumer<TableId> reread;

  /** Tables whose description differs from the plan's, for the tail to take up. */
  private final Set<TableId> altered = ConcurrentHashMap.newKeySet();

  /** The cached tables' InnoDB ids: a new one is a TRUNCATE, re-read whole. */
  private final RecreatedTables recreated;

  /** Which cached tables' catalog rows changed since they last matched their description. */
  private final CatalogFingerprints fingerprints = new CatalogFingerprints();

  /** Whether the outbox's ids began again below those read ({@link #takeOutboxRenumbered}). */
  private final OutboxRenumbering renumbering;

  private volatile String outboxRenumbered;

  UntriggeredChanges(
      MysqlFlavor flavor,
      boolean reconciling,
      LongSupplier lastReadId,
      UnfollowedTables unfollowed,
      Consumer<TableId> reread) {
    this.renumbering = new OutboxRenumbering(flavor, lastReadId);
    this.unfollowed = unfollowed;
    this.reread = reread;
    this.recreated = new RecreatedTables(flavor, reconciling);
  }

  /**
   * Looks once on {@code c}: a table whose rows were replaced is re-read, a renumbered outbox kept
   * for {@link #takeOutboxRenumbered}. Describes every cached table again; one that differs from
   * the plan is left for the tail to take up.
   */
  void look(Connection c, CapturePlan p) throws SQLException {
    String renumbered = renumbering.look(c, p);
    TableId outbox = p.outboxId();
    for (Map.Entry<TableId, String> t : rowsReplaced(c, p).entrySet()) {
      if (t.getKey().equals(outbox)) { // its ids began again, maybe above the last read by now
        renumbered =
            "the outbox "
                + p.outboxTable()
                + ": "
                + t.getValue()
                + ", so its ids began again below those the server has read";
      } else {
        LOG.info("{}: {}: re-reading it", t.getKey(), t.getValue());
        reread.accept(t.getKey());
      }
    }
    if (renumbered != null) {
      outboxRenumbered = renumbered;
    }
    fingerprints.look(c, p.tables().stream().map(TableSchema::id).toList());
    for (TableSchema known : p.tables()) {
      TableSchema now;
      boolean gone = unfollowed.isGone(known.id().qualified());
      if (!gone && fingerprints.unchanged(known)) {
        continue;
      }
      try {
        now = p.describe(c, known.id());
      } catch (MissingTableException e) {
        fingerprints.differs(known.id());
        if (!gone) {
          altered.add(known.id()); // the tail takes it for gone, rows read or not
        }
        continue;
      } catch (RuntimeException e) {
        fingerprints.differs(known.id());
        continue; // cannot be described now: the tail's own reads report it
      }
      if (gone || !now.equals(known)) {
        fingerprints.differs(known.id());
        altered.add(known.id()); // back, or altered: the tail re-reads it
      } else {
        fingerprints.matched(known);
      }
    }
  }

  /**
   * Remembers the cached tables' InnoDB ids; before the snapshot, so that a TRUNCATE after it is
   * found by the next check ({@link RecreatedTables}).
   */
  void rememberTableIds(Connection c, CapturePlan p) {
    rowsReplaced(c, p);
  }

  /**
   * The cached tables whose rows were replaced without a trigger since the last look (truncated, or
   * a partition truncated, exchanged or dropped), each with what happened; none when the look fails
   * (said at WARN: the rest of the check and the snapshot go on, and reconciliation still finds
   * them).
   */
  private Map<TableId, String> rowsReplaced(Connection c, CapturePlan p) {
    List<TableId> tables = new ArrayList<>(p.tables().stream().map(TableSchema::id).toList());
    tables.add(p.outboxId()); // truncated, its ids begin again below those the tail read
    try {
      return recreated.rowsReplaced(c, tables);
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Looking for truncated tables failed (reconciliation still finds them): {}",
          e.toString());
      return Map.of();
    }
  }

  /**
   * What the last check found when the outbox's ids began again below those the tail read, once;
   * null when they did not. The tail then reads every cached table again.
   */
  String takeOutboxRenumbered() {
    String found = outboxRenumbered;
    outboxRenumbered = null;
    return found;
  }

  /**
   * {@code table} was found altered elsewhere (a reconciliation range): the tail takes it up at its
   * next poll.
   */
  void altered(TableId table) {
    altered.add(table);
  }

  /**
   * The tables found altered since the last call (their catalog differs from the plan), forgotten.
   */
  Set<TableId> takeAltered() {
    if (altered.isEmpty()) {
      return Set.of();
    }
    Set<TableId> out = new LinkedHashSet<>(altered);
    altered.removeAll(out);
    return out;
  }
}
