package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import java.util.List;
import java.util.Set;

/**
 * Where the {@link TailLoop} hands what it reads from the {@link ChangeSource}: the initial
 * snapshot, then every committed batch with the changes of the tables' states it carries (stale,
 * followed again). The hub implements it, so the tail knows nothing of the hub. Called on the tail
 * loop's thread only.
 */
public interface TailSink {

  /**
   * An empty load of {@code tables} that the loop fills with the source's snapshot rows and then
   * installs; a failed snapshot read drops it and the loop starts a new one.
   */
  SnapshotLoad snapshotLoad(List<TableSchema> tables);

  /**
   * Applies a committed batch (its changes, table reads and table-state changes) and sends it on.
   * Blocks until applied, so the loop never runs ahead of the sink.
   *
   * @return the cached tables whose image could not take an event of the batch: the loop has the
   *     source re-read each ({@link ChangeSource#resync}); empty normally
   */
  Set<String> publish(CommittedBatch batch);

  /**
   * Whether {@link #publishStaleness} may be called from another thread while the loop waits for a
   * poll (an {@link UnansweredPollWatch}): a sink whose positions are its own (the hub), or one
   * that stores such a batch without the source's position (capture). Not a sink that gives every
   * batch the source's position of the moment (a server reading a stream), which the poll in
   * progress may be moving.
   */
  default boolean takesStalenessDuringPolls() {
    return false;
  }

  /**
   * Publishes what the loop says of every table ({@link EveryTableStale}): a batch of table states
   * only, which moves no position. By default {@link #publish}.
   */
  default void publishStaleness(CommittedBatch states) {
    publish(states);
  }

  /** The rows of one snapshot read, installed whole once the read completed. */
  interface SnapshotLoad extends ChangeSource.SnapshotSink {

    /** Replaces whatever was installed before by the rows loaded. Blocks until done. */
    void install();
  }
}
