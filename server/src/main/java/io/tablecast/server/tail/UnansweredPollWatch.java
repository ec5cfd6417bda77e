package io.tablecast.server.tail;

import io.tablecast.server.log.RecentEvents;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;

/**
 * Watches the tail's polls from a thread of its own, for one that does not return: a database, or
 * the network to it, that stops answering without closing the connection (a host powered off, a
 * firewall or NAT that drops the connection's packets, a failover that moves the address) leaves
 * the poll's read waiting until the operating system gives the connection up, a quarter of an hour
 * by Linux's defaults; no poll fails meanwhile, so nothing said the mirrors stale while they fell
 * behind (seen through a proxy that stopped forwarding the database's answers: 40 s without a word,
 * {@code UnansweredReadTest}). Once a poll has gone {@link ChangeSource#answerTimeout} ({@code
 * source.answer_timeout}) without returning, {@code unanswered} is told when it began; the loop
 * says every table followed again after the poll that returns. A poll that is only long (a large
 * transaction, a table re-read whole) is told the same way: changes of every table wait behind it
 * meanwhile.
 *
 * <p>From then on, every half of that while the poll has not returned, {@code stillUnanswered} is
 * told too: the source asks the database whether its read's answer was lost ({@link
 * ChangeSource#abandonReadIfAnswerLost}), and if so abandons the read, which is made again on a new
 * connection. Without it, a connection whose packets something kept acknowledging (a proxy, a NAT
 * that forgot the connection) never gave the read up: every table stayed stale.
 *
 * <p>{@code unanswered} runs under this watch's lock, which {@link #pollStarted} and {@link
 * #pollEnded} take too: it never overlaps the loop's own work between two polls. {@code
 * stillUnanswered}, which waits for the database, runs outside it.
 */
final class UnansweredPollWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(UnansweredPollWatch.class);

  /** The longest pause between two looks at the poll in progress. */
  private static final long CHECK_EVERY_MILLIS = 1_000;

  private final Object lock = new Object();
  private final LongConsumer unanswered;
  private final Runnable stillUnanswered;

  /** How long a poll may go without returning before it is told. */
  private final long afterMillis;

  /** How often the source is asked again whether an unanswered poll's answer was lost. */
  private final long askAgainMillis;

  /** How often the poll in progress is looked at. */
  private final long checkEveryMillis;

  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread thread;

  /** Wall-clock millis when the poll in progress began; 0 when none is (guarded by lock). */
  private long pollStartedMillis;

  /** The poll in progress was told as unanswered already (guarded by lock). */
  private boolean told;

  /** When {@code stillUnanswered} is due next for the poll in progress (guarded by lock). */
  private long askAtMillis;

  /**
   * A watch, its thread started, that tells {@code unanswered} (with the poll's start, wall-clock
   * millis) once per poll that has gone {@code afterMillis} without returning, and {@code
   * stillUnanswered} then and every {@link #askAgainMillis()} after while it does not return.
   */
  UnansweredPollWatch(long afterMillis, LongConsumer unanswered, Runnable stillUnanswered) {
    this.afterMillis = afterMillis;
    this.askAgainMillis = afterMillis / 2;
    this.checkEveryMillis = Math.min(CHECK_EVERY_MILLIS, Math.max(1, afterMillis / 4));
    this.unanswered = unanswered;
    this.stillUnanswered = stillUnanswered;
    this.thread = new Thread(this::run, "tablecast-tail-watch");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /**
   * A watch of the loop's polls that says {@code everyTable} stale once a poll has gone {@code
   * source}'s {@link ChangeSource#answerTimeout} without returning (unless it is said stale
   * already), and has {@code source} abandon the poll's read when the database says its answer was
   * lost.
   */
  static UnansweredPollWatch sayingStale(EveryTableStale everyTable, ChangeSource source) {
    return new UnansweredPollWatch(
        source.answerTimeout().toMillis(),
        since -> {
          try {
            long seconds = (System.currentTimeMillis() - since) / 1000;
            String said = everyTable.unanswered(since, seconds, source.wholeReadNow());
            if (said != null) {
              LOG.warn(
                  "a read of changes has not returned for {} s; every table is stale until a read"
                      + " returns: {}",
                  seconds,
                  said);
            }
          } catch (RuntimeException e) {
            LOG.warn("could not say every table stale: {}", e.toString()); // the hub is closing
          }
        },
        abandoningIfLost(source, "a read of changes"));
  }

  /**
   * A watch of the initial snapshot's reads, which says nothing stale (nothing is served yet) but
   * has {@code source} abandon a read when the database says its answer was lost: the snapshot then
   * fails and is read again, where it waited for ever before (start hung, its progress frozen).
   */
  static UnansweredPollWatch abandoningLostReads(ChangeSource source) {
    return new UnansweredPollWatch(
        source.answerTimeout().toMillis(),
        since -> {}, // a whole read may be long: its progress is logged as it goes
        abandoningIfLost(source, "the initial snapshot"));
  }

  /**
   * Has {@code source} abandon its read when the database says the read's answer was lost, and logs
   * what it found, naming {@code what} was read.
   */
  private static Runnable abandoningIfLost(ChangeSource source, String what) {
    return () -> {
      try {
        long idleSeconds = Math.max(1, source.answerTimeout().toSeconds());
        String abandoned = source.abandonReadIfAnswerLost(idleSeconds);
        if (abandoned != null) {
          LOG.warn("{}: {}", what, abandoned);
        }
      } catch (SQLException | RuntimeException e) {
        LOG.info("could not ask the database about {}: {}", what, e.toString());
      }
    };
  }

  /** The loop begins a poll. */
  void pollStarted() {
    synchronized (lock) {
      pollStartedMillis = System.currentTimeMillis();
      told = false;
    }
  }

  /** The poll returned or failed; waits for a callback in progress. */
  void pollEnded() {
    synchronized (lock) {
      pollStartedMillis = 0;
    }
  }

  /**
   * Tells the poll in progress as unanswered if it has gone long enough, and as still unanswered
   * when that is due. Watch thread.
   */
  void check(long nowMillis) {
    synchronized (lock) {
      if (pollStartedMillis == 0 || nowMillis - pollStartedMillis < afterMillis) {
        return;
      }
      if (!told) {
        told = true;
        askAtMillis = nowMillis;
        unanswered.accept(pollStartedMillis);
      }
      if (nowMillis < askAtMillis) {
        return;
      }
      askAtMillis = nowMillis + askAgainMillis;
    }
    stillUnanswered.run();
  }

  private void run() {
    try {
      while (!stop.await(checkEveryMillis, TimeUnit.MILLISECONDS)) {
        check(System.currentTimeMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How often the source is asked again whether an unanswered poll's answer was lost. */
  long askAgainMillis() {
    return askAgainMillis;
  }

  @Override
  public void close() {
    stop.countDown();
  }
}
