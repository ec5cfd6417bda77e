package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink;
import io.tablecast.client.internal.MirrorSink.SnapshotDiff;
import io.tablecast.client.internal.RowIndex;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * A typed mirror's copy of a snapshot in flight: each row is mapped to the row type as it arrives,
 * or as a later batch's change replaces it, and only the object is kept, in the index that becomes
 * the mirror's at the snapshot's end. The row's bytes are garbage once it is mapped, instead of
 * waiting beside the object for the end, and no second index is built then: at any time the copy
 * holds about what the mirror will hold. A row that cannot be mapped is kept as it came and mapped
 * again at the end, when the mirror reports it as it reports any row that does not map ({@link
 * MirrorWriter}: logged, told to the error listeners, counted by its {@link RowFit}), so that a row
 * replaced during the snapshot by one that maps is never reported. Event loop only.
 *
 * @param <V> the row type
 */
final class TypedSnapshot<V> implements MirrorSink.MappedSnapshot {

  /** A row that did not map when it arrived, kept to be mapped again at the end. */
  private record Unmapped(ObjectNode row) {}

  private final TypedRowMapping<V> mapping;
  private final BiFunction<Object, ObjectNode, V> reportingMap;
  private final Supplier<SnapshotSwap<V>> swap;

  /** Per key the mapped row ({@code V}), or an {@link Unmapped}; null once installed. */
  private RowIndex<Object> rows;

  /** Whether an {@link Unmapped} was ever held. */
  private boolean unmappedHeld;

  /**
   * @param expectedRows the rows the snapshot announced ({@link RowIndex#forSnapshot}, until they
   *     are priced and {@link #reserve}d)
   * @param reportingMap maps a row at the end, reporting it when it cannot (null then)
   * @param swap begins the swap into the mirror
   */
  TypedSnapshot(
      long expectedRows,
      TypedRowMapping<V> mapping,
      BiFunction<Object, ObjectNode, V> reportingMap,
      Supplier<SnapshotSwap<V>> swap) {
    this.rows = RowIndex.forSnapshot(expectedRows);
    this.mapping = mapping;
    this.reportingMap = reportingMap;
    this.swap = swap;
  }

  @Override
  public void put(Object key, ObjectNode row) {
    Object held;
    try {
      held = mapping.map(row);
    } catch (RuntimeException e) { // told at the end, if it is still the row's image then
      held = new Unmapped(row);
      unmappedHeld = true;
    }
    rows.put(key, held);
  }

  @Override
  public void put(Object key, RowForm form, byte[] bytes) {
    Object held;
    try {
      held = mapping.map(form, bytes);
    } catch (RuntimeException e) { // told at the end, if it is still the row's image then
      held = new Unmapped(PackedRow.of(form, bytes));
      unmappedHeld = true;
    }
    rows.put(key, held);
  }

  @Override
  public void remove(Object key) {
    rows.remove(key);
  }

  @Override
  public void reserve(long rows) {
    this.rows.reserve(rows);
  }

  @Override
  public int size() {
    return rows.size();
  }

  @Override
  public long objectBytes() {
    return mapping.objectBytes();
  }

  @Override
  @SuppressWarnings("unchecked") // only Vs are left in the index once the Unmapped are gone
  public SnapshotDiff install(long position) {
    RowIndex<Object> held = rows;
    rows = null;
    SnapshotSwap<V> s = swap.get();
    if (!s.comparesRows() && !unmappedHeld) { // every row stays as it is: no pass, no key boxed
      return s.finish((RowIndex<V>) (RowIndex<?>) held, position);
    }
    List<Object> unmapped = new ArrayList<>();
    held.forEach(
        (key, value) -> {
          V row =
              value instanceof Unmapped u
                  ? s.received(key, u.row(), reportingMap)
                  : s.mapped(key, (V) value);
          if (row == null) {
            unmapped.add(key);
          } else if (row != value) {
            held.put(key, row); // the same key: its slot's value is replaced, nothing moves
          }
        });
    unmapped.forEach(held::remove);
    return s.finish((RowIndex<V>) (RowIndex<?>) held, position);
  }
}
