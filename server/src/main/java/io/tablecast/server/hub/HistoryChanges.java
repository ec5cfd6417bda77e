package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a batch read again from the {@link BatchHistory} into the changes the live path sent for
 * it, without the images of that time: each event's operation and old row come from the event
 * (PostgreSQL records the row before every UPDATE and DELETE), and a change that repeats the row a
 * mirror holds is harmless. A table read (reconciliation, a resync) that changed no image is
 * skipped. What only the image of that time could tell is {@link Refused}: a TRUNCATE (the rows it
 * removed), a table read that changed an image or that this server did not apply itself, an event
 * in another layout than the table's now (an ALTER TABLE since the position), and, for a session
 * with a row filter, a change without its old row that the filter cannot place: a delete by key
 * (MySQL/MariaDB), a row outside the filter that may have been inside before (any insert, since the
 * stream does not say the key was new, and MySQL/MariaDB updates). Any thread: it reads only what
 * the hub handed it.
 */
final class HistoryChanges {

  /** The layout each of the session's tables has now, taken on the hub thread. */
  record Layout(TableSchema schema, RowForm form) {}

  /** A batch of the history that cannot be replayed; the session takes a snapshot instead. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  private final Map<String, Layout> layouts;
  private final SessionPolicy policy;

  /**
   * Positions at which a table read changed an image ({@link TableReadPositions}); null: unknown.
   */
  private final Set<Long> readPositions;

  HistoryChanges(Map<String, Layout> layouts, SessionPolicy policy, Set<Long> readPositions) {
    this.layouts = Map.copyOf(layouts);
    this.policy = policy;
    this.readPositions = readPositions;
  }

  /** The changes of the session's tables in {@code b}, unfiltered (the replay filters them). */
  // the layout object of the event before, found equal already, skips the full comparison
  @SuppressWarnings("ReferenceEquality")
  ResumeBuffer.Retained changes(BatchHistory.Positioned b) throws Refused {
    CommittedBatch batch = b.batch();
    for (CommittedBatch.TableRead r : batch.tableReads()) {
      // a read that changed no image (reconciliation finding none) took no position: skipped
      if (layouts.containsKey(r.schema().id().qualified())
          && (readPositions == null || readPositions.contains(b.position()))) {
        throw new Refused(
            "position "
                + b.position()
                + " re-reads "
                + r.schema().id().qualified()
                + (readPositions == null
                    ? ", and this server does not know whether that changed its image"
                    : ", which changed its image"));
      }
    }
    List<RowEvent> events = new ArrayList<>();
    boolean namesRows = false; // PostgreSQL
    boolean deletesByKey = false; // MySQL/MariaDB
    TableSchema same = null;
    for (RowEvent e : batch.events()) {
      Layout now = layouts.get(e.table());
      if (now == null) {
        continue;
      }
      if (e instanceof RowEvent.Truncate) {
        throw new Refused("position " + b.position() + " truncates " + e.table());
      }
      TableSchema layout =
          e instanceof RowEvent.Upsert u ? u.schema() : ((RowEvent.Delete) e).schema();
      if (layout != same && !layout.equals(now.schema())) {
        throw new Refused(
            "the columns of " + e.table() + " changed since (position " + b.position() + ")");
      }
      same = layout;
      events.add(e);
      namesRows |= before(e) != null;
      deletesByKey |= e instanceof RowEvent.Delete && before(e) == null;
    }
    List<Message.Change> changes = new ArrayList<>(events.size());
    if (namesRows && !deletesByKey) {
      for (RowEvent e : events) {
        refuseUnplaceable(e, layouts.get(e.table()).form(), b.position());
      }
      changes.addAll(new SharedKeysReplay(layouts).changes(events));
    } else {
      for (RowEvent e : events) {
        changes.add(change(e, layouts.get(e.table()).form(), b.position()));
      }
    }
    long bytes = 64;
    for (Message.Change c : changes) {
      bytes += BatchParts.approxBytes(c);
    }
    return new ResumeBuffer.Retained(b.position(), batch.captureMillis(), changes, bytes);
  }

  private static byte[] before(RowEvent e) {
    return e instanceof RowEvent.Upsert u ? u.before() : ((RowEvent.Delete) e).before();
  }

  /** Refuses a change a session's row filter cannot place without the image of that time. */
  private void refuseUnplaceable(RowEvent e, RowForm form, long position) throws Refused {
    if (!policy.filters(e.table())) {
      return;
    }
    if (e instanceof RowEvent.Upsert u) {
      if (u.before() == null && !JsonEdge.matches(policy, e.table(), PackedRow.of(form, u.row()))) {
        throw new Refused(
            "position "
                + position
                + " holds a row of "
                + e.table()
                + " outside the session's filter without its row before, which only the image of"
                + " that time knows");
      }
    } else if (((RowEvent.Delete) e).before() == null) {
      throw new Refused(
          "position "
              + position
              + " deletes a row of "
              + e.table()
              + " by its key alone: the session's filter needs the row");
    }
  }

  private Message.Change change(RowEvent e, RowForm form, long position) throws Refused {
    refuseUnplaceable(e, form, position);
    if (e instanceof RowEvent.Upsert u) {
      return new Message.Change(
          e.table(),
          u.before() == null ? Op.INSERT : Op.UPDATE,
          PackedKey.of(form, u.key()),
          u.before() == null ? null : PackedRow.of(form, u.before()),
          PackedRow.of(form, u.row()));
    }
    RowEvent.Delete d = (RowEvent.Delete) e;
    return new Message.Change(
        e.table(),
        Op.DELETE,
        PackedKey.of(form, d.key()),
        d.before() == null ? null : PackedRow.of(form, d.before()),
        null);
  }
}
