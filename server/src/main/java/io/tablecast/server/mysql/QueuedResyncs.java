package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.UnfollowedTables;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cached tables {@link MysqlCaptureWatch} has re-read whole with the tail's next batch, those
 * followed again once that read succeeds, and those whose read failed: stale, and queued again at
 * each capture check until a read succeeds. Thread-safe: the watch's checks queue, the tail reads.
 */
final class QueuedResyncs {
  private final UnfollowedTables unfollowed;

  /** To re-read with the next batch. */
  private final Set<TableId> queued = ConcurrentHashMap.newKeySet();

  /** Tables that could not be followed and are followed again once their resync is read. */
  private final Set<TableId> followAfter = ConcurrentHashMap.newKeySet();

  /** Tables whose resync failed: stale, and queued again at each check until one is read. */
  private final Set<TableId> failed = ConcurrentHashMap.newKeySet();

  QueuedResyncs(UnfollowedTables unfollowed) {
    this.unfollowed = unfollowed;
  }

  /** Has {@code table} re-read with the next batch. */
  void add(TableId table) {
    queued.add(table);
  }

  /** Has {@code table} re-read with the next batch, and followed again once it is. */
  void addAndFollow(TableId table) {
    followAfter.add(table);
    queued.add(table);
  }

  /**
   * A check found {@code table}'s capture complete while it could not be followed: true when this
   * queues its re-read, after which it is followed again (false when it is queued already, or its
   * last read failed: {@link #retryFailed} queues those).
   */
  boolean followOnceRead(TableId table) {
    if (failed.contains(table) || !followAfter.add(table)) {
      return false;
    }
    queued.add(table);
    return true;
  }

  /** Queues again each table whose resync failed: a check tries them once more. */
  void retryFailed() {
    queued.addAll(failed);
  }

  /** The tables to re-read with the next batch, as the plan describes them now. */
  List<TableSchema> pending(CapturePlan current) {
    if (queued.isEmpty()) {
      return List.of();
    }
    Map<TableId, TableSchema> byId = new LinkedHashMap<>();
    current.tables().forEach(t -> byId.put(t.id(), t));
    List<TableSchema> out = new ArrayList<>();
    for (TableId id : queued) {
      if (byId.containsKey(id)) {
        out.add(byId.get(id));
      }
    }
    return out;
  }

  /**
   * These tables were re-read, or their read failed ({@code why}, per table). Those that could not
   * be followed before and were re-read are followed again, said with the batch that re-read them.
   * One whose read failed is stale (its mirrors lack what the re-read was for: a partition
   * truncated, a client's request, ...), and each check queues it again until a read succeeds;
   * given up on, it was left to reconciliation without a word (a resync cut short by {@code KILL
   * QUERY}, a row too large to hand over).
   */
  void resynced(Collection<TableSchema> tables, Map<TableId, String> why) {
    for (TableSchema t : tables) {
      queued.remove(t.id());
      boolean wasUnfollowed = followAfter.remove(t.id());
      String error = why.get(t.id());
      if (error != null) {
        failed.add(t.id());
        unfollowed.cannotFollow(
            t.id(),
            "its re-read failed ("
                + error
                + "): the mirror keeps its rows, and the table is read again at the next capture"
                + " check");
      } else {
        boolean hadFailed = failed.remove(t.id());
        if (hadFailed || wasUnfollowed) {
          unfollowed.followedAgain(t.id());
        }
      }
    }
  }
}
