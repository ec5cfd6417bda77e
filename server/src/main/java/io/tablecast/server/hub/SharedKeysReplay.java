package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.image.RowChange;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.KeyMoves;
import io.tablecast.server.tail.RowEvent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A batch read again from the history, whose events name their rows before (PostgreSQL), said as
 * the live path said it without the image of that time: the rows the events name as the rows their
 * keys held before the batch (rows the batch did not put there) make a small image of the keys the
 * batch touches, and the events are applied to it as the hub applies them ({@link
 * TableImage#apply(RowEvent, KeyMoves, List)}), rows that share a key within the batch (a
 * DEFERRABLE key) included. Said event by event, a swap's second UPDATE took the first row off the
 * key it had just moved onto, and a client resumed from the history lost it ({@code
 * HistoryChangesTest}).
 *
 * <p>A key a row passes through (the batch puts a row there and takes it off again) may hold a row
 * no event names, which the small image cannot know: the row arriving was said to move onto a free
 * key and to take the key away when it left, and a client lost the key's own row. Such a batch is
 * said as its net change per key ({@link Coalescer}; a client applies a batch at once all the
 * same), in which the passage nets to nothing and the key's row stays. A change naming a row equal
 * to one the batch put on its key is taken for a change of that one, once: equal rows are
 * interchangeable, and a second change naming it names the key's own row (taken for the put row
 * twice, a key's own row was left out of the small image and the batch said wrong).
 */
final class SharedKeysReplay {
  private final Map<String, HistoryChanges.Layout> layouts;

  SharedKeysReplay(Map<String, HistoryChanges.Layout> layouts) {
    this.layouts = layouts;
  }

  /** What the events name of one table's keys. */
  private static final class Named {
    /** Key → the row it held before the batch, as an event names it. */
    final Map<ByteBuffer, byte[]> held = new HashMap<>();

    /** Key → the rows the batch put there. */
    final Map<ByteBuffer, List<byte[]>> put = new HashMap<>();

    /** Keys a row the batch put there left (moved on or deleted). */
    final Set<ByteBuffer> left = new HashSet<>();

    /**
     * {@code row} is named as the row of {@code key} by a change that takes it off the key ({@code
     * leaves}) or changes it there: the key held it before the batch, unless the batch put it there
     * (then that row is taken: it is on the key no more, or changed).
     */
    void named(byte[] key, byte[] row, boolean leaves) {
      ByteBuffer k = ByteBuffer.wrap(key);
      List<byte[]> putThere = put.getOrDefault(k, List.of());
      for (int i = 0; i < putThere.size(); i++) {
        if (Arrays.equals(putThere.get(i), row)) {
          putThere.remove(i);
          if (leaves) {
            left.add(k);
          }
          return;
        }
      }
      held.putIfAbsent(k, row);
    }

    /** Whether a row passes through a key whose row before the batch no event names. */
    boolean passesUnnamedKey() {
      return left.stream().anyMatch(k -> !held.containsKey(k));
    }
  }

  /** The changes of {@code events}, each of a table of {@link #layouts} in its layout. */
  List<Message.Change> changes(List<RowEvent> events) {
    Map<String, Named> named = new HashMap<>();
    for (RowEvent e : events) {
      RowForm form = layouts.get(e.table()).form();
      Named here = named.computeIfAbsent(e.table(), t -> new Named());
      if (e instanceof RowEvent.Upsert u) {
        if (u.before() != null) {
          byte[] from = form.keyOf(u.before());
          here.named(from, u.before(), !Arrays.equals(from, u.key()));
        }
        here.put.computeIfAbsent(ByteBuffer.wrap(u.key()), k -> new ArrayList<>()).add(u.row());
      } else if (e instanceof RowEvent.Delete d && d.before() != null) {
        here.named(d.key(), d.before(), true);
      }
    }
    boolean net = false;
    for (Named n : named.values()) {
      net |= n.passesUnnamedKey();
    }
    Map<String, TableImage> images = new HashMap<>();
    Map<String, KeyMoves> moves = new HashMap<>();
    List<RowChange> made = new ArrayList<>(2);
    List<Message.Change> out = new ArrayList<>(events.size());
    for (RowEvent e : events) {
      TableImage image =
          images.computeIfAbsent(
              e.table(),
              t -> {
                TableImage i = new TableImage(layouts.get(t).schema());
                named.get(t).held.values().forEach(i::put);
                return i;
              });
      made.clear();
      image.apply(e, moves.computeIfAbsent(e.table(), t -> new KeyMoves()), made);
      for (RowChange c : made) {
        out.add(JsonEdge.change(image.form(), c));
      }
    }
    return net ? net(out) : out;
  }

  /** The net change per key of {@code changes}. */
  private List<Message.Change> net(List<Message.Change> changes) {
    Coalescer net =
        new Coalescer((t, row) -> JsonEdge.keyOf(row, layouts.get(t).schema().primaryKey()));
    net.add(0, 0, changes);
    return net.drain();
  }
}
