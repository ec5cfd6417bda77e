package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink.SnapshotDiff;
import io.tablecast.client.internal.RowIndex;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * One snapshot swapped into a mirror: each of its rows is compared with the row the mirror holds
 * under the same key, when the mirror held its table before (an unchanged row keeps its value, the
 * same object; a changed one is counted and, for the mirror's listeners, becomes an event), then
 * the rows the snapshot lacks are deleted and the new rows replace the old in one step. Used by
 * {@link MirrorWriter#install} for rows received whole at the snapshot's end and by {@link
 * TypedSnapshot} for rows mapped as they arrived. Event loop only.
 *
 * @param <V> the row type
 */
final class SnapshotSwap<V> {
  private final Mirror<V> mirror;
  private final RowMapping<V> mapping;
  private final ListenerDispatcher dispatcher;
  private final RowIndex<V> current;
  private final boolean diff;
  private final boolean wantEvents;
  private final List<ChangeEvent<V>> events;
  private int inserted;
  private int updated;

  /**
   * Begins the swap: from now on only the snapshot's rows that cannot be mapped count in {@code
   * fit}.
   */
  SnapshotSwap(Mirror<V> mirror, RowMapping<V> mapping, RowFit fit, ListenerDispatcher dispatcher) {
    this.mirror = mirror;
    this.mapping = mapping;
    this.dispatcher = dispatcher;
    this.current = mirror.rows.current();
    this.diff = mirror.readiness.wasReady();
    this.wantEvents = diff && !mirror.listeners.isEmpty();
    this.events = new ArrayList<>(0);
    fit.replacingAll();
  }

  /**
   * Whether the rows received are compared with rows the mirror held (it held its table before);
   * when not, {@link #mapped} keeps each row as it is.
   */
  boolean comparesRows() {
    return diff;
  }

  /**
   * The row to hold for the image {@code json} of {@code key}: the row held when {@code json} is
   * its image ({@link RowMapping#sameImage}) or maps to an equal value ({@link
   * RowMapping#sameValue}), else what {@code map} makes of it. When it cannot be mapped ({@code
   * map} tells why), the row held keeps its value, as after a change that does not map; null when
   * the mirror held none.
   */
  V received(Object key, ObjectNode json, BiFunction<Object, ObjectNode, V> map) {
    V old = diff ? current.get(key) : null;
    Boolean same = old == null ? Boolean.FALSE : mapping.sameImage(old, json);
    if (Boolean.TRUE.equals(same)) {
      return old;
    }
    return held(key, old, same, map.apply(key, json));
  }

  /** A mapping of a row in the row form, as {@link MirrorWriter} makes it. */
  interface BytesMapping<V> {
    /** The row of {@code bytes} in the layout {@code form}, or null when it does not map. */
    V map(Object key, RowForm form, byte[] bytes);
  }

  /**
   * As {@link #received(Object, ObjectNode, BiFunction)}, for the row {@code bytes} in the layout
   * {@code form} (a snapshot's row held as bytes), without a tree or a {@code PackedRow} around it.
   */
  V received(Object key, RowForm form, byte[] bytes, BytesMapping<V> map) {
    V old = diff ? current.get(key) : null;
    Boolean same = old == null ? Boolean.FALSE : mapping.sameImage(old, form, bytes);
    if (Boolean.TRUE.equals(same)) {
      return old;
    }
    return held(key, old, same, map.map(key, form, bytes));
  }

  /** The row to hold once a received row was mapped to {@code row} (null: did not map). */
  private V held(Object key, V old, Boolean same, V row) {
    if (row == null) {
      return old;
    }
    if (same == null && mapping.sameValue(old, row)) {
      return old;
    }
    changed(key, old, row);
    return row;
  }

  /**
   * The row to hold for {@code row}, mapped when it arrived: the row held when equal ({@link
   * RowMapping#sameValue}), else {@code row}. For a mapping whose {@link RowMapping#sameImage}
   * tells nothing (typed rows), the same as {@link #received} with that row's image.
   */
  V mapped(Object key, V row) {
    V old = diff ? current.get(key) : null;
    if (old != null && mapping.sameValue(old, row)) {
      return old;
    }
    changed(key, old, row);
    return row;
  }

  private void changed(Object key, V old, V row) {
    if (!diff) {
      return;
    }
    if (old == null) {
      inserted++;
    } else {
      updated++;
    }
    if (wantEvents) {
      events.add(MirrorRows.event(mirror.table(), key, old, row));
    }
  }

  /**
   * Makes the events of the swap from the rows alone, for a listener that came after it began: a
   * row of {@code fresh} that is not the very object held before changed (an unchanged row keeps
   * its object), and a key {@code fresh} lacks was deleted.
   */
  private void differences(RowIndex<V> fresh) {
    fresh.forEach(
        (key, row) -> {
          V old = current.get(key);
          if (old != row) {
            events.add(MirrorRows.event(mirror.table(), key, old, row));
          }
        });
    current.forEach(
        (key, row) -> {
          if (fresh.get(key) == null) {
            events.add(new ChangeEvent<>(mirror.table(), ChangeType.DELETE, key, row, null));
          }
        });
  }

  /**
   * Ends the swap: {@code fresh}, which holds the rows {@link #received} or {@link #mapped} gave
   * (and nothing else), becomes the mirror's rows at {@code position} and the mirror is ready; the
   * listeners are told; returns what changed ({@link SnapshotDiff#NONE} for a first snapshot).
   */
  SnapshotDiff finish(RowIndex<V> fresh, long position) {
    int deleted = 0;
    if (diff) {
      List<ChangeEvent<V>> deletes = new ArrayList<>();
      current.forEach(
          (key, row) -> {
            if (fresh.get(key) == null) {
              deletes.add(new ChangeEvent<>(mirror.table(), ChangeType.DELETE, key, row, null));
            }
          });
      deleted = deletes.size();
      if (wantEvents) {
        events.addAll(deletes);
      }
    }
    boolean heard = mirror.rows.replace(fresh, position, mirror.listeners::isPresent);
    if (heard && diff && !wantEvents) { // a listener came during the swap: it hears it all
      events.clear();
      differences(fresh);
    }
    mirror.readiness.markReady();
    mirror.staleness.refresh();
    dispatcher.dispatch(events, mirror.listeners);
    return diff ? new SnapshotDiff(inserted, updated, deleted) : SnapshotDiff.NONE;
  }
}
