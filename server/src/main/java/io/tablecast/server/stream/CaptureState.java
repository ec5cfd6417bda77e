package io.tablecast.server.stream;

/** What a {@code capture} process says of itself on {@code /health} and {@code /metrics}. */
public interface CaptureState {

  /** True while this process holds the lease and publishes. */
  boolean leading();

  /** How many times this process took the lease. */
  int terms();

  /** The stream sequence of the last message this process stored; 0 before any. */
  long lastSequence();

  /**
   * True while NATS cannot be reached or JetStream is not ready (a standby retries with a bounded
   * back-off), or while a batch NATS did not acknowledge is being published again.
   */
  boolean waitingForNats();

  /**
   * Why this process cannot do its work (its standby loop failed, its tail stopped), or null when
   * it can.
   */
  String problem();
}
