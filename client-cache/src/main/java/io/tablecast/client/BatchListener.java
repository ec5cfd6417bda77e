package io.tablecast.client;

import java.util.List;

/**
 * Receives each applied batch's changes to one {@link TableMirror} at once: for work done once per
 * batch rather than once per row (a flush of an output, a derived value recomputed, one message for
 * a group of changes). A batch holds whole transactions, one or more, and its changes are those the
 * {@link ChangeListener}s hear, in the same order. Called on the client's single listener thread,
 * after the batch is visible in the mirror and after the mirror's change listeners have heard it. A
 * listener that throws is logged and does not affect the mirror or other listeners.
 *
 * @param <V> the row type
 */
@FunctionalInterface
public interface BatchListener<V> {

  /**
   * Called once per applied batch that changed this table; a re-snapshot that found differences
   * gives them as one batch.
   *
   * @param changes the batch's changes to this table, never empty, unmodifiable
   */
  void onBatch(List<ChangeEvent<V>> changes);
}
