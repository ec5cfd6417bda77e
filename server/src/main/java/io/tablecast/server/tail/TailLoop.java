package io.tablecast.server.tail;

import io.tablecast.server.log.RecentEvents;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The thread that reads the database: the source's snapshot once, then {@link ChangeSource#poll}
 * forever, each handed to a {@link TailSink} (the hub, which keeps the images). Database errors,
 * and any other exception of a poll, are logged and retried with capped exponential backoff; the
 * source keeps its position, and the hub keeps serving its images. Only an {@link Error} (out of
 * memory) ends the loop. A poll that keeps failing, or does not return, shows in {@code /health}
 * (see {@link #problem()}), never as a loop that is gone for good while the database is fine. A
 * poll that fails {@link #STALE_AFTER_MILLIS} or more after the last one that succeeded, or a loop
 * that ended, makes every table stale for its clients ({@link EveryTableStale}) until a poll
 * succeeds again; so does a poll that has not returned for {@link ChangeSource#answerTimeout} (a
 * database that stopped answering without closing the connection), where the sink takes table
 * states between polls ({@link TailSink#takesStalenessDuringPolls}).
 */
public final class TailLoop implements AutoCloseable {

  private static final Logger LOG = RecentEvents.logger(TailLoop.class);

  /** Longest wait of one poll; also bounds how long {@link #close()} waits for the loop. */
  static final Duration POLL_WAIT = Duration.ofMillis(250);

  static final long FIRST_BACKOFF_MILLIS = 100;
  static final long MAX_BACKOFF_MILLIS = 10_000;

  /** How long after the last successful poll a failing one says every table is stale. */
  static final long STALE_AFTER_MILLIS = 5_000;

  private final ChangeSource source;
  private final TailSink sink;
  private final Thread thread;
  private final CompletableFuture<Void> loaded = new CompletableFuture<>();
  private final CountDownLatch stop = new CountDownLatch(1);

  /** Wall-clock millis of the first failure of the current run of failing polls; 0 = healthy. */
  private volatile long failingSinceMillis;

  /** Wall-clock millis when the poll in progress began its read; 0 between reads. */
  private volatile long readingSinceMillis;

  /** The loop ended on an unexpected exception: no more changes will be read. */
  private volatile boolean died;

  /** Changes (row events) returned by the last successful poll. */
  private volatile int lastPollChanges;

  /**
   * Wall-clock millis of the last poll that found nothing more to read (the loop was caught up).
   */
  private volatile long caughtUpMillis = System.currentTimeMillis();

  /** What the loop says of every table (polls failing or unanswered, the loop dead). */
  private final EveryTableStale everyTable;

  /** Wall-clock millis of the last successful poll (tail thread). */
  private long lastSuccessMillis = System.currentTimeMillis();

  /** The share of the heap the images may not take by default: kept for serving. */
  public static final int DEFAULT_HEAP_RESERVE_PERCENT = 20;

  /** The initial snapshot's read. */
  private final InitialSnapshot initial;

  /**
   * A loop, not started yet, that reads {@code source} into {@code sink}, sizing the snapshot's
   * images against the JVM's heap with the default reserve.
   */
  public TailLoop(ChangeSource source, TailSink sink) {
    this(source, sink, HeapRoom.runtime(), DEFAULT_HEAP_RESERVE_PERCENT);
  }

  /**
   * A loop, not started yet, that reads {@code source} into {@code sink}; the initial snapshot is
   * refused ({@link HeapTooSmallException}) when its images would take {@code heap} into its last
   * {@code heapReservePercent} percent.
   */
  public TailLoop(ChangeSource source, TailSink sink, HeapRoom heap, int heapReservePercent) {
    this.source = source;
    this.sink = sink;
    this.everyTable = new EveryTableStale(sink);
    this.initial = new InitialSnapshot(source, sink, heap, heapReservePercent);
    this.thread = new Thread(this::run, "tablecast-tail");
    this.thread.setDaemon(true);
  }

  /**
   * The initial snapshot's progress while it is read, counts only (no table named); null before and
   * after.
   */
  public String snapshotProgress() {
    return initial.progress();
  }

  /**
   * Starts the thread and waits until the initial snapshot is installed in the sink.
   *
   * @throws IllegalStateException when the snapshot failed with anything but a database error
   */
  public void startAndAwaitSnapshot() throws InterruptedException {
    thread.start();
    try {
      loaded.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "initial snapshot failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  private void run() {
    try {
      if (!loadSnapshot()) {
        return;
      }
      try (UnansweredPollWatch watch = watchPolls()) {
        pollUntilStopped(watch);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException
        | Error e) { // a RuntimeException here is the snapshot's; the polls retry theirs
      if (!loaded.isDone()) {
        loaded.completeExceptionally(
            e instanceof OutOfMemoryError oom ? initial.outOfMemory(oom) : e);
      } else if (!stopped()) {
        died = true;
        LOG.error(
            "the tail loop stopped; clients are served from memory but receive no more changes", e);
        try {
          everyTable.stopped(e);
        } catch (RuntimeException | Error ignored) {
          // out of memory, or the hub is gone: /health says DOWN in any case
        }
      }
    } finally {
      loaded.completeExceptionally(new IllegalStateException("the tail loop was stopped"));
    }
  }

  /**
   * Reads the initial snapshot, again after each database error, until it is loaded; false when the
   * loop was stopped first. Its reads are watched for an answer lost on the way ({@link
   * UnansweredPollWatch#abandoningLostReads}).
   */
  private boolean loadSnapshot() throws InterruptedException {
    long backoff = FIRST_BACKOFF_MILLIS;
    try (UnansweredPollWatch watch = UnansweredPollWatch.abandoningLostReads(source)) {
      while (!loaded.isDone() && !stopped()) {
        try {
          watch.pollStarted();
          everyTable.tables(initial.read());
          lastSuccessMillis = System.currentTimeMillis();
          loaded.complete(null);
        } catch (SQLException e) {
          watch.pollEnded();
          LOG.warn("initial snapshot failed, retrying in {} ms: {}", backoff, e.toString());
          if (pause(backoff)) {
            return false;
          }
          backoff = Math.min(source.longestRetryPause().toMillis(), backoff * 2);
        }
      }
    }
    return loaded.isDone();
  }

  /** A watch of the polls when the sink takes table states between them; null otherwise. */
  private UnansweredPollWatch watchPolls() {
    return sink.takesStalenessDuringPolls()
        ? UnansweredPollWatch.sayingStale(everyTable, source)
        : null;
  }

  /** Polls until stopped. Tail thread. */
  private void pollUntilStopped(UnansweredPollWatch watch) throws InterruptedException {
    long backoff = FIRST_BACKOFF_MILLIS;
    while (!stopped()) {
      try {
        long pollStartMillis = System.currentTimeMillis();
        CommittedBatch batch;
        if (watch != null) {
          watch.pollStarted();
        }
        readingSinceMillis = pollStartMillis;
        try {
          batch = source.poll(POLL_WAIT);
        } finally {
          readingSinceMillis = 0;
          if (watch != null) {
            watch.pollEnded();
          }
        }
        lastPollChanges = batch.events().size();
        if (!batch.isEmpty()) {
          sink.publish(batch)
              .forEach(source::resync); // images that could not take an event: re-read
        }
        // sync requests the read covered: their writes are in the images and sent
        source.readBarrier().ifPresent(ReadBarrier::delivered);
        // a read is never cut short: it returned all the outbox held when it began
        caughtUpMillis = pollStartMillis;
        everyTable.pollSucceeded(); // after the batch that brought the mirrors up to date
        lastSuccessMillis = System.currentTimeMillis();
        failingSinceMillis = 0;
        backoff = FIRST_BACKOFF_MILLIS;
      } catch (InstanceChangedException e) {
        // logged by the InstanceWatch: the next poll, at once, reads every table again
        lastPollChanges = 0;
      } catch (SQLException | RuntimeException e) {
        if (stopped()) {
          return; // closing: the hub was shut down under the poll
        }
        boolean first = failingSinceMillis == 0;
        if (first) {
          failingSinceMillis = System.currentTimeMillis();
        }
        if (e instanceof SQLException) {
          LOG.warn(
              "reading changes failed (clients keep being served from memory), retrying in {} ms: {}",
              backoff,
              SqlErrors.describe(e));
        } else if (first) {
          // not a database error: a bug or data the server cannot handle; the trace once
          LOG.error(
              "reading changes failed on an unexpected error (clients keep being served from memory), "
                  + "retrying in {} ms",
              backoff,
              e);
        } else {
          LOG.error("reading changes failed again, retrying in {} ms: {}", backoff, e.toString());
        }
        everyTable.pollFailed(
            lastSuccessMillis,
            SqlErrors.inFewWords(e),
            SqlErrors.kind(e),
            System.currentTimeMillis() - lastSuccessMillis >= STALE_AFTER_MILLIS);
        if (pause(backoff)) {
          return;
        }
        backoff = Math.min(source.longestRetryPause().toMillis(), backoff * 2);
      }
    }
  }

  /**
   * Why this loop is not keeping its images current, for {@code /health}; null while it is. It is
   * not once it stopped on an unexpected error, once its reads have failed without a success in
   * between, or its read has not returned, for longer than three times the source's {@link
   * ChangeSource#answerTimeout} ({@code source.answer_timeout}, 30 s by default): every table was
   * said stale long before, and the data is going staler. The reason names no table, address or
   * cause (anyone who reaches the port may ask); the log says more.
   */
  public String problem() {
    if (died) {
      return "the tail loop stopped on an unexpected error";
    }
    long now = System.currentTimeMillis();
    long downAfter = source.answerTimeout().multipliedBy(3).toMillis();
    long failingSince = failingSinceMillis;
    if (failingSince != 0 && now - failingSince > downAfter) {
      return "reading changes from the database has failed for "
          + (now - failingSince) / 1000
          + " s";
    }
    long readingSince = readingSinceMillis;
    if (readingSince != 0 && now - readingSince > downAfter) {
      return "a read of changes from the database has not returned for "
          + (now - readingSince) / 1000
          + " s";
    }
    return null;
  }

  /** True when the loop ended on an unexpected error: clients get no more changes. */
  public boolean died() {
    return died;
  }

  /** Row events the last successful poll returned (a full poll hints at an outbox backlog). */
  public int lastPollChanges() {
    return lastPollChanges;
  }

  /**
   * Epoch millis when the last successful poll began: a poll reads all the outbox holds, so the
   * loop was caught up with every change committed before then. It falls behind while one poll
   * reads a large backlog (a million-row transaction) or while polls fail.
   */
  public long caughtUpMillis() {
    return caughtUpMillis;
  }

  private boolean stopped() {
    return stop.getCount() == 0;
  }

  /** Sleeps for the backoff; true when the loop was stopped meanwhile. */
  private boolean pause(long millis) throws InterruptedException {
    return stop.await(millis, TimeUnit.MILLISECONDS);
  }

  /** Stops the loop and waits for it to end (the source is closed by its owner). */
  @Override
  public void close() {
    stop.countDown();
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
