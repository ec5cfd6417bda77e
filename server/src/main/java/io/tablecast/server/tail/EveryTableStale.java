package io.tablecast.server.tail;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tail loop says of every cached table at once, through its sink (cause {@value #CAUSE}):
 * stale while polls keep failing, while one poll goes unanswered ({@link UnansweredPollWatch}) or
 * once the loop died, and followed again after the poll that brings the mirrors up to date. The
 * tail thread and the watch's both speak; a lock keeps their words in order.
 */
final class EveryTableStale {
  /** The cause of this staleness, beside a table's own causes. */
  static final String CAUSE = "database";

  private final TailSink sink;
  private final Object lock = new Object();

  /** The cached tables, as the snapshot read them. */
  private volatile List<String> tables = List.of();

  /** Every table was said stale (written under the lock). */
  private volatile boolean said;

  EveryTableStale(TailSink sink) {
    this.sink = sink;
  }

  /** The tables to speak of (the snapshot's). */
  void tables(List<String> names) {
    tables = List.copyOf(names);
  }

  /** Whether every table was said stale and not followed again since. */
  boolean said() {
    return said;
  }

  /** Polls kept failing since {@code lastSuccessMillis}, the last with {@code error}. */
  void failing(long lastSuccessMillis, String error) {
    say(
        "the server has read no changes from the database since "
            + Instant.ofEpochMilli(lastSuccessMillis)
            + " ("
            + error
            + "); the mirror keeps the rows it has and catches up when the database is back");
  }

  /** A poll begun at {@code sinceMillis} has not returned (the watch's thread). */
  void unanswered(long sinceMillis, long seconds) {
    say(
        "the server's read of changes from the database has not returned since "
            + Instant.ofEpochMilli(sinceMillis)
            + " ("
            + seconds
            + " s): the database, or the network to it, may have stopped answering; the mirror"
            + " keeps the rows it has and catches up when the read returns");
  }

  /** Says every table stale ({@code reason}) or followed again (null). */
  void say(String reason) {
    synchronized (lock) {
      List<CommittedBatch.Staleness> all = new ArrayList<>();
      for (String table : tables) {
        all.add(new CommittedBatch.Staleness(table, CAUSE, reason));
      }
      sink.publishStaleness(new CommittedBatch(List.of(), 0, List.of(), all));
      said = reason != null;
    }
  }
}
