package io.tablecast.client;

/**
 * Receives the row changes of a {@link TableMirror}. Called on the client's single listener thread,
 * in batch order, after the batch is visible in the mirror. A listener that throws is logged and
 * does not affect the mirror or other listeners.
 *
 * @param <V> the row type
 */
@FunctionalInterface
public interface ChangeListener<V> {

  /** Called once per changed row. */
  void onChange(ChangeEvent<V> event);
}
