package io.tablecast.client;

/** A registered listener; {@link #cancel()} removes it. Cancelling twice is harmless. */
public interface Subscription extends AutoCloseable {

  /** Stops delivery to the listener. Events already queued for it may still arrive. */
  void cancel();

  /** Same as {@link #cancel()}. */
  @Override
  default void close() {
    cancel();
  }
}
