package io.tablecast.server.stream;

import io.tablecast.server.tail.CommittedBatch;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A server's record of what the stream's captures said stale, so that a capture that takes over
 * (restarted, a standby after a failover) settles what the one before it left. A capture says a
 * table stale for a cause (a lock DDL waits for, a changed row it could not read, a trigger
 * missing) and says it again without a reason once the cause is gone; what it had pending when it
 * stopped (the table's read again whole, the rows kept) dies with it, and the next capture, which
 * starts from the catalog as it finds it, never says those causes gone: before, every server kept
 * such a table stale for as long as it ran, and wrote no checkpoint meanwhile.
 *
 * <p>Each group carries the id of the capture run that published it ({@link GroupReader.Group}).
 * When a group of another run comes, the causes the earlier runs left are the new run's to settle:
 * their tables are to be read again whole ({@link #toAsk}: the server asks the leader), and each
 * such cause is said gone with the first whole read of its table by a later run, after the read's
 * rows (the hub applies a batch's reads before its staleness), unless the run says that cause
 * itself then. Until then the table stays stale as it was: a later run saying such a cause gone
 * before is not passed on. Confined to the server's tail thread.
 */
final class StalenessAcrossRuns {

  /** How long the server waits for a table it asked for before asking again. */
  static final long ASK_AGAIN_NANOS = 5_000_000_000L;

  private String run;

  /** Per table, the causes the current run said and has not said gone. */
  private final Map<String, Set<String>> current = new TreeMap<>();

  /** Per table, the causes earlier runs left, until a whole read of it by a later run. */
  private final Map<String, Set<String>> inherited = new TreeMap<>();

  /** Causes the server said for the current run ({@link #saidByTheStream}). */
  private final List<CommittedBatch.Staleness> saidForTheRun = new ArrayList<>();

  /** Per table, causes said before any group of a run was seen: the next run's to settle. */
  private final Map<String, Set<String>> pendingFirstRun = new TreeMap<>();

  private long askedAt;
  private boolean askNow;

  /**
   * The batch of {@code run}'s group as the hub is to apply it: with the causes earlier runs left
   * said gone for each table it reads whole.
   */
  CommittedBatch take(String groupRun, CommittedBatch batch) {
    if (groupRun == null) {
      return batch;
    }
    if (run == null ? !pendingFirstRun.isEmpty() : !run.equals(groupRun)) {
      pendingFirstRun.forEach(
          (t, causes) -> current.computeIfAbsent(t, x -> new LinkedHashSet<>()).addAll(causes));
      pendingFirstRun.clear();
      current.forEach(
          (t, causes) -> inherited.computeIfAbsent(t, x -> new LinkedHashSet<>()).addAll(causes));
      current.clear();
      saidForTheRun.clear();
      askNow = !inherited.isEmpty();
    }
    run = groupRun;
    List<CommittedBatch.Staleness> staleness = new ArrayList<>(batch.staleness().size());
    boolean changed = !saidForTheRun.isEmpty();
    for (CommittedBatch.Staleness s : saidForTheRun) { // the run publishes after all
      remove(current, s.table(), s.cause());
      staleness.add(new CommittedBatch.Staleness(s.table(), s.cause(), null));
    }
    saidForTheRun.clear();
    for (CommittedBatch.Staleness s : batch.staleness()) {
      if (s.reason() != null) {
        current.computeIfAbsent(s.table(), t -> new LinkedHashSet<>()).add(s.cause());
      } else {
        remove(current, s.table(), s.cause());
        if (holds(inherited, s.table(), s.cause())) {
          changed = true; // an earlier run said it too: gone only once the table is read whole
          continue;
        }
      }
      staleness.add(s);
    }
    for (CommittedBatch.TableRead r : batch.tableReads()) {
      String table = r.schema().id().qualified();
      Set<String> causes = r.chunk() == null ? inherited.remove(table) : null;
      if (causes != null) {
        for (String c : causes) {
          if (!holds(current, table, c)) { // else this run says it now, and will say it gone
            staleness.add(new CommittedBatch.Staleness(table, c, null));
            changed = true;
          }
        }
      }
    }
    return changed
        ? new CommittedBatch(batch.events(), batch.captureMillis(), batch.tableReads(), staleness)
        : batch;
  }

  /**
   * The tables whose causes an earlier run left, to be asked for now: at once after a new run
   * began, then every {@link #ASK_AGAIN_NANOS} until read (a leader that had not begun to take
   * requests, or a read that failed).
   */
  List<String> toAsk(long nowNanos) {
    if (inherited.isEmpty() || !(askNow || nowNanos - askedAt >= ASK_AGAIN_NANOS)) {
      return List.of();
    }
    askNow = false;
    askedAt = nowNanos;
    return List.copyOf(inherited.keySet());
  }

  /**
   * Causes the server says for the stream (that no capture publishes to it, {@link
   * CaptureAbsence}): they are the current run's, which the next run settles with its whole reads;
   * a later group of the same run (it publishes after all) says them gone. Returns the batch that
   * says them.
   */
  CommittedBatch saidByTheStream(List<CommittedBatch.Staleness> staleness) {
    for (CommittedBatch.Staleness s : staleness) {
      (run != null ? current : pendingFirstRun)
          .computeIfAbsent(s.table(), t -> new LinkedHashSet<>())
          .add(s.cause());
    }
    if (run != null) {
      saidForTheRun.addAll(staleness); // said gone by a group of the same run, if one comes
    }
    return new CommittedBatch(List.of(), 0, List.of(), staleness);
  }

  /**
   * The server's images were replaced by a checkpoint after it missed messages: the checkpoint was
   * written when nothing was stale, so every cause the stream said before is gone (its "gone" may
   * have been among the messages missed), and the groups after the checkpoint say anew what holds.
   * Returns those causes said gone.
   */
  List<CommittedBatch.Staleness> forgetAtCheckpoint() {
    List<CommittedBatch.Staleness> gone = new ArrayList<>();
    for (Map<String, Set<String>> byTable : List.of(current, inherited, pendingFirstRun)) {
      byTable.forEach(
          (t, causes) -> causes.forEach(c -> gone.add(new CommittedBatch.Staleness(t, c, null))));
      byTable.clear();
    }
    saidForTheRun.clear();
    run = null;
    askNow = false;
    return gone;
  }

  /** The tables whose causes an earlier run left and no whole read has settled yet. */
  Set<String> inherited() {
    return inherited.keySet();
  }

  private static boolean holds(Map<String, Set<String>> byTable, String table, String cause) {
    Set<String> causes = byTable.get(table);
    return causes != null && causes.contains(cause);
  }

  private static void remove(Map<String, Set<String>> byTable, String table, String cause) {
    Set<String> causes = byTable.get(table);
    if (causes != null && causes.remove(cause) && causes.isEmpty()) {
      byTable.remove(table);
    }
  }
}
