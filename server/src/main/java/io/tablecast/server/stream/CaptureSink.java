package io.tablecast.server.stream;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.TailSink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Where capture's tail loop hands what it reads: into the stream instead of images. A committed
 * batch is published as one group (its events, whole transactions, and staleness changes), then one
 * group per table read; the source's cursor goes on the last part of the last group, and only once
 * NATS acknowledged it is the source told ({@link ChangeSource#acknowledged}) that the outbox may
 * be pruned up to there. The initial snapshot is one group per table, the last one marked {@link
 * StreamHeaders#KIND_SNAPSHOT_END}. Blocks until stored, so the loop never reads ahead of the
 * stream; a publish that NATS refused because another publisher appended ends capture ({@code
 * onFenced}).
 */
final class CaptureSink implements TailSink {

  private final GroupPublisher publisher;
  private final ChangeSource source;
  private final Consumer<RuntimeException> onFenced;
  private volatile boolean resuming;

  CaptureSink(GroupPublisher publisher, ChangeSource source, Consumer<RuntimeException> onFenced) {
    this.publisher = publisher;
    this.source = source;
    this.onFenced = onFenced;
  }

  /** True when the snapshot was not read but resumed after a cursor. */
  boolean resumed() {
    return resuming;
  }

  /** The next snapshot is not read but resumed after a cursor: nothing to publish. */
  void resuming(boolean r) {
    resuming = r;
  }

  @Override
  public SnapshotLoad snapshotLoad(List<TableSchema> tables) {
    Map<TableSchema, List<byte[]>> rows = new LinkedHashMap<>();
    tables.forEach(t -> rows.put(t, new ArrayList<>()));
    return new SnapshotLoad() {
      @Override
      public void row(TableSchema table, byte[] row) {
        rows.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
      }

      @Override
      public void install() {
        if (resuming) {
          // a group of this run at once, so that servers settle what the run before left stale
          // (StalenessAcrossRuns) even when nothing changes
          store(StreamHeaders.KIND_BATCH, CommittedBatch.EMPTY, source.cursor());
          return;
        }
        List<TableSchema> all = new ArrayList<>(rows.keySet());
        for (int i = 0; i < all.size(); i++) {
          TableSchema t = all.get(i);
          boolean end = i == all.size() - 1;
          CommittedBatch one =
              new CommittedBatch(
                  List.of(),
                  System.currentTimeMillis(),
                  List.of(
                      new CommittedBatch.TableRead(t, rows.get(t), CommittedBatch.Purpose.RESYNC)));
          rows.put(t, List.of()); // the rows published are not kept
          String kind = end ? StreamHeaders.KIND_SNAPSHOT_END : StreamHeaders.KIND_SNAPSHOT;
          if (!store(kind, one, end ? source.cursor() : null)) {
            return;
          }
        }
      }
    };
  }

  @Override
  public Set<String> publish(CommittedBatch batch) {
    List<CommittedBatch> groups = new ArrayList<>();
    if (!batch.events().isEmpty() || !batch.staleness().isEmpty()) {
      groups.add(
          new CommittedBatch(batch.events(), batch.captureMillis(), List.of(), batch.staleness()));
    }
    for (CommittedBatch.TableRead r : batch.tableReads()) {
      groups.add(new CommittedBatch(List.of(), batch.captureMillis(), List.of(r)));
    }
    String cursor = source.cursor();
    for (int i = 0; i < groups.size(); i++) {
      if (!store(StreamHeaders.KIND_BATCH, groups.get(i), i == groups.size() - 1 ? cursor : null)) {
        break;
      }
    }
    return Set.of(); // no images here: the servers re-read nothing through capture (yet)
  }

  /**
   * Stores table states without the source's cursor: they move no position, and the watch of
   * unanswered polls says them while a poll may be moving it.
   */
  @Override
  public void publishStaleness(CommittedBatch states) {
    store(StreamHeaders.KIND_BATCH, states, null);
  }

  @Override
  public boolean takesStalenessDuringPolls() {
    return true;
  }

  /** Publishes one group; false when capture is closing or was fenced. */
  private boolean store(String kind, CommittedBatch group, String cursor) {
    try {
      if (!publisher.publish(kind, BatchCodec.encode(group), group.captureMillis(), cursor)) {
        return false;
      }
    } catch (GroupPublisher.FencedException e) {
      onFenced.accept(e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    if (cursor != null) {
      source.acknowledged(cursor);
    }
    return true;
  }
}
