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
import java.util.List;
import java.util.Map;

/**
 * A batch read again from the history, whose events name their rows before (PostgreSQL), said as
 * the live path said it without the image of that time: the rows the events name as the rows their
 * keys held before the batch (rows the batch did not put there) make a small image of the keys the
 * batch touches, and the events are applied to it as the hub applies them ({@link
 * TableImage#apply(RowEvent, KeyMoves, List)}), rows that share a key within the batch (a
 * DEFERRABLE key) included. Said event by event, a swap's second UPDATE took the first row off the
 * key it had just moved onto, and a client resumed from the history lost it ({@code
 * HistoryChangesTest}).
 */
final class SharedKeysReplay {
  private final Map<String, HistoryChanges.Layout> layouts;

  SharedKeysReplay(Map<String, HistoryChanges.Layout> layouts) {
    this.layouts = layouts;
  }

  /** The changes of {@code events}, each of a table of {@link #layouts} in its layout. */
  List<Message.Change> changes(List<RowEvent> events) {
    Map<String, Map<ByteBuffer, byte[]>> held = new HashMap<>();
    Map<String, Map<ByteBuffer, List<byte[]>>> put = new HashMap<>();
    for (RowEvent e : events) {
      RowForm form = layouts.get(e.table()).form();
      Map<ByteBuffer, byte[]> heldHere = held.computeIfAbsent(e.table(), t -> new HashMap<>());
      Map<ByteBuffer, List<byte[]>> putHere = put.computeIfAbsent(e.table(), t -> new HashMap<>());
      if (e instanceof RowEvent.Upsert u) {
        if (u.before() != null) {
          named(heldHere, putHere, form.keyOf(u.before()), u.before());
        }
        putHere.computeIfAbsent(ByteBuffer.wrap(u.key()), k -> new ArrayList<>()).add(u.row());
      } else if (e instanceof RowEvent.Delete d && d.before() != null) {
        named(heldHere, putHere, d.key(), d.before());
      }
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
                held.get(t).values().forEach(i::put);
                return i;
              });
      made.clear();
      image.apply(e, moves.computeIfAbsent(e.table(), t -> new KeyMoves()), made);
      for (RowChange c : made) {
        out.add(JsonEdge.change(image.form(), c));
      }
    }
    return out;
  }

  /**
   * {@code row} is named as the row of {@code key}: the key held it before the batch, unless the
   * batch put it there.
   */
  private static void named(
      Map<ByteBuffer, byte[]> held, Map<ByteBuffer, List<byte[]>> put, byte[] key, byte[] row) {
    ByteBuffer k = ByteBuffer.wrap(key);
    List<byte[]> putThere = put.get(k);
    if (putThere != null && putThere.stream().anyMatch(r -> Arrays.equals(r, row))) {
      return;
    }
    held.putIfAbsent(k, row);
  }
}
