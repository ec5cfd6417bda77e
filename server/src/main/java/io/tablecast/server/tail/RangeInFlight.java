package io.tablecast.server.tail;

import io.tablecast.protocol.row.RowForm;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * A reconciliation range read on the reconciliation thread, in the snapshot of an outbox read whose
 * batch the tail has already handed on, while the tail reads the batches after it. The hub compares
 * a range with its image as it stands after the batch the range comes with, so the range is brought
 * forward to that batch: each change the later batches made to its table replaces or removes the
 * row of its key, or adds it (a row a change touched counts as seen by the pass anyway: {@code
 * DriftPasses}). Whatever rows cannot describe (a TRUNCATE, a whole re-read of the table, a change
 * in another table version) drops the range, and its pass starts over. Tail thread, but for the
 * read itself.
 */
final class RangeInFlight {
  private final RangeRead range;
  private final Future<RangeRead.Outcome> outcome;
  private final RowForm form;

  /** Rows of the table changed since the range's snapshot, by key: the row now, or null if gone. */
  private final Map<ByteBuffer, byte[]> changed = new HashMap<>();

  /** Why the range can no longer be compared, or null. */
  private String dropped;

  RangeInFlight(RangeRead range, Future<RangeRead.Outcome> outcome) {
    this.range = range;
    this.outcome = outcome;
    this.form = new RowForm(range.table().columns(), range.table().primaryKey());
  }

  RangeRead range() {
    return range;
  }

  /** {@code batch}, read after the range's snapshot, is being handed on. */
  void follow(CommittedBatch batch) {
    String name = range.table().id().qualified();
    KeyMoves moves = new KeyMoves(); // as the image follows the batch
    for (RowEvent e : batch.events()) {
      if (dropped != null) {
        return;
      }
      if (!e.table().equals(name)) {
        continue;
      }
      if (e instanceof RowEvent.Upsert u && u.schema().equals(range.table())) {
        follow(u, moves);
      } else if (e instanceof RowEvent.Delete d && d.schema().equals(range.table())) {
        leave(d.key(), d.before(), moves);
      } else {
        dropped = e instanceof RowEvent.Truncate ? "truncated" : "altered";
      }
    }
    for (CommittedBatch.TableRead r : batch.tableReads()) {
      if (r.schema().id().equals(range.table().id())) {
        dropped = "read whole";
      }
    }
  }

  /** As {@code TableImage.apply} takes {@code u}, with the range's own rows unread. */
  private void follow(RowEvent.Upsert u, KeyMoves moves) {
    ByteBuffer k = ByteBuffer.wrap(u.key());
    boolean moved = false;
    if (u.before() != null) {
      byte[] from = form.keyOf(u.before());
      if (!Arrays.equals(from, u.key())) {
        moved = true;
        leave(from, u.before(), moves);
      } else if (moves.any() && moves.changedHidden(u.key(), changed.get(k), u.before(), u.row())) {
        return;
      }
    }
    byte[] hides = changed.containsKey(k) ? changed.get(k) : KeyMoves.UNREAD;
    if (moved) {
      moves.moved(u.key(), u.row(), hides);
    } else if (u.before() == null) {
      moves.inserted(u.key(), u.row(), hides);
    }
    changed.put(k, u.row());
  }

  /**
   * A change left {@code key}, naming {@code before} (null: unknown) as its row there: the key
   * shows what {@link KeyMoves#leave} says, as in the image. Brought forward by another rule, the
   * range lacked a row the image holds: the pass took it for a row gone from the table and deleted
   * it from the image and every mirror, a repair of nothing ({@code SharedKeysModelTest}, and
   * {@code KeySwapTest} now and then on a busy machine).
   */
  private void leave(byte[] key, byte[] before, KeyMoves moves) {
    ByteBuffer k = ByteBuffer.wrap(key);
    byte[] held = changed.get(k); // null: gone, or the range's own row (never one that arrived)
    byte[] shows = moves.leave(key, held, before);
    if (shows == null) {
      changed.put(k, null);
    } else if (shows == KeyMoves.UNREAD) {
      changed.remove(k); // the range's own row of the key, hidden until now, is shown again
    } else if (shows != held) {
      changed.put(k, shows);
    }
  }

  boolean isDone() {
    return outcome.isDone();
  }

  /** Why the range cannot be compared any more (it is dropped), or null. */
  String dropped() {
    return dropped;
  }

  /** What the read found, once {@link #isDone()}. */
  RangeRead.Outcome outcome() {
    try {
      return outcome.get();
    } catch (ExecutionException e) {
      return new RangeRead.Failed(String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new RangeRead.Failed("interrupted");
    }
  }

  /** The rows read, brought forward to the last batch {@link #follow}ed. */
  List<byte[]> broughtForward(List<byte[]> rows) {
    if (changed.isEmpty()) {
      return rows;
    }
    List<byte[]> out = new ArrayList<>(rows.size() + changed.size());
    for (byte[] row : rows) {
      if (!changed.containsKey(ByteBuffer.wrap(form.keyOf(row)))) {
        out.add(row);
      }
    }
    for (byte[] row : changed.values()) {
      if (row != null) {
        out.add(row);
      }
    }
    return out;
  }
}
