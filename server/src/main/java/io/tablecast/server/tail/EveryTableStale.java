package io.tablecast.server.tail;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tail loop says of every cached table at once, through its sink (cause {@value #CAUSE}):
 * stale while polls keep failing, while one poll goes unanswered ({@link UnansweredPollWatch}) or
 * once the loop died, and followed again after the poll that brings the mirrors up to date. The
 * tail thread and the watch's both speak; a lock keeps their words in order.
 *
 * <p>The words follow what the loop knows: a poll unanswered after polls that failed is said with
 * their error, and a poll said unanswered that then fails is said again with its error. Before, the
 * first words stayed until the database was back: a database that refused connections was said to
 * have "stopped answering" for as long as it was down, because the poll waited for the pool's
 * connection longer than {@code source.answer_timeout}.
 */
final class EveryTableStale {
  /** The cause of this staleness, beside a table's own causes. */
  static final String CAUSE = "database";

  /** What every table was said to be, last. */
  private enum Said {
    NOTHING,
    UNANSWERED,
    FAILING,
    STOPPED
  }

  /**
   * A poll that failed: when the last that succeeded was, its error, and the error's kind (its
   * SQLSTATE class, null when unknown).
   */
  private record Failing(long lastSuccessMillis, String error, String kind) {}

  private final TailSink sink;
  private final Object lock = new Object();

  /** The cached tables, as the snapshot read them. */
  private volatile List<String> tables = List.of();

  /** What every table was said to be (written under the lock). */
  private volatile Said said = Said.NOTHING;

  /** The last poll, when it failed; null after a poll that succeeded. */
  private volatile Failing failing;

  /** The kind of error every table was said stale with, while said failing (under the lock). */
  private String saidKind;

  /** What every table was said to be, last; null: followed (under the lock). */
  private String saidReason;

  EveryTableStale(TailSink sink) {
    this.sink = sink;
  }

  /** The tables to speak of (the snapshot's). */
  void tables(List<String> names) {
    tables = List.copyOf(names);
  }

  /** Whether every table was said stale and not followed again since. */
  boolean said() {
    return said != Said.NOTHING;
  }

  /**
   * A poll failed with {@code error} of {@code kind} (its SQLSTATE class; null when unknown), the
   * last success at {@code lastSuccessMillis} (tail thread). Every table is said stale with it when
   * {@code sayNow}, or at once when it was said unanswered (the mirrors are stale already: only the
   * words change), unless it was said so already; and said again when the failures changed kind,
   * two in a row of the new one: a connection cut, then credentials the database no longer takes,
   * say the second once the pool's tries to connect fail on it. An error that only differs in its
   * text (a connection id, the pool's counts) is not said again: every client of every table hears
   * each saying, and the log has every error.
   */
  void pollFailed(long lastSuccessMillis, String error, String kind, boolean sayNow) {
    Failing before = failing;
    Failing now = new Failing(lastSuccessMillis, error, kind);
    failing = now;
    synchronized (lock) {
      if (said == Said.UNANSWERED || (sayNow && said == Said.NOTHING)) {
        sayFailing(now);
      } else if (said == Said.FAILING
          && kind != null
          && !kind.equals(saidKind)
          && before != null
          && kind.equals(before.kind())) {
        sayFailing(now);
      }
    }
  }

  /** A poll succeeded: every table said stale is followed again (tail thread). */
  void pollSucceeded() {
    failing = null;
    if (said()) {
      say(null, Said.NOTHING);
    }
  }

  /**
   * A poll begun at {@code sinceMillis} has not returned for {@code seconds}: every table is said
   * stale unless it was already, with the error of the polls that failed before it if they did, or
   * with {@code wholeRead} when the poll is reading a table whole ({@link
   * ChangeSource#wholeReadNow}, null when not); returns the reason said, null when nothing was (the
   * watch's thread).
   */
  String unanswered(long sinceMillis, long seconds, String wholeRead) {
    synchronized (lock) {
      if (said()) {
        return null;
      }
      Failing before = failing;
      if (before != null) {
        sayFailing(before);
      } else if (wholeRead != null) {
        say(
            "the server's read of changes has not returned since "
                + Instant.ofEpochMilli(sinceMillis)
                + " ("
                + seconds
                + " s): it is reading a table whole again ("
                + wholeRead
                + "), which holds every table's changes until it is done; the mirror keeps the"
                + " rows it has and catches up when the read is over",
            Said.UNANSWERED);
      } else {
        say(
            "the server's read of changes from the database has not returned since "
                + Instant.ofEpochMilli(sinceMillis)
                + " ("
                + seconds
                + " s): the database, or the network to it, may have stopped answering; the mirror"
                + " keeps the rows it has and catches up when the read returns",
            Said.UNANSWERED);
      }
      return saidReason;
    }
  }

  /** The loop stopped for good on {@code error}. */
  void stopped(Throwable error) {
    say(
        "the server stopped reading changes on an unexpected error (" + error + "); restart it",
        Said.STOPPED);
  }

  /** Says every table stale with {@code f}'s error (under the lock). */
  private void sayFailing(Failing f) {
    say(
        "the server has read no changes from the database since "
            + Instant.ofEpochMilli(f.lastSuccessMillis())
            + " ("
            + f.error()
            + "); the mirror keeps the rows it has and catches up when the database is back",
        Said.FAILING);
    saidKind = f.kind();
  }

  /** Says every table stale ({@code reason}, as {@code what}) or followed again (null). */
  private void say(String reason, Said what) {
    synchronized (lock) {
      saidReason = reason;
      List<CommittedBatch.Staleness> all = new ArrayList<>();
      for (String table : tables) {
        all.add(new CommittedBatch.Staleness(table, CAUSE, reason));
      }
      sink.publishStaleness(new CommittedBatch(List.of(), 0, List.of(), all));
      said = what;
    }
  }
}
