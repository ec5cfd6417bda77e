package io.tablecast.client;

/**
 * Told when a mirror stops following its table, or follows it again (see {@link
 * TableMirror#staleReason()}). Called on the client's listener thread, after the change events
 * queued before it.
 */
@FunctionalInterface
public interface StaleListener {

  /**
   * Called when the mirror may differ from its table, and again when it follows its table again.
   *
   * @param reason why the mirror may differ from its table (what the server could not read, and
   *     what would repair it), or null when it follows its table again
   */
  void staleChanged(String reason);
}
