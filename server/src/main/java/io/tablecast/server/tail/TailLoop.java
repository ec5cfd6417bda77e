package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
 * memory) ends the loop. A poll that keeps failing shows in {@code /health} (see {@link
 * #failingSinceMillis()}), never as a loop that is gone for good while the database is fine. A poll
 * that fails {@link #STALE_AFTER_MILLIS} or more after the last one that succeeded, or a loop that
 * ended, makes every table stale for its clients ({@link EveryTableStale}) until a poll succeeds
 * again; so does a poll that has not returned for {@link
 * UnansweredPollWatch#UNANSWERED_AFTER_MILLIS} (a database that stopped answering without closing
 * the connection), where the sink takes table states between polls ({@link
 * TailSink#takesStalenessDuringPolls}).
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

  /** The heap the snapshot's images are sized against, and the share kept for serving. */
  private final HeapRoom heap;

  private final int heapReservePercent;

  /**
   * The sizing of the snapshot being loaded, to name its table if the heap runs out all the same.
   */
  private volatile ImageSizeCheck sizing;

  /** The initial snapshot's progress while it is read; null before and after. */
  private volatile Progress loading;

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
    this.heap = heap;
    this.heapReservePercent = heapReservePercent;
    this.thread = new Thread(this::run, "tablecast-tail");
    this.thread.setDaemon(true);
  }

  /**
   * The initial snapshot's progress while it is read, counts only (no table named); null before and
   * after.
   */
  public String snapshotProgress() {
    Progress p = loading;
    return p == null ? null : p.counts();
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
    long backoff = FIRST_BACKOFF_MILLIS;
    try {
      while (!loaded.isDone() && !stopped()) {
        try {
          snapshot();
          lastSuccessMillis = System.currentTimeMillis();
          loaded.complete(null);
        } catch (SQLException e) {
          LOG.warn("initial snapshot failed, retrying in {} ms: {}", backoff, e.toString());
          if (pause(backoff)) {
            return;
          }
          backoff = Math.min(source.longestRetryPause().toMillis(), backoff * 2);
        }
      }
      try (UnansweredPollWatch watch = watchPolls()) {
        pollUntilStopped(watch);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException
        | Error e) { // a RuntimeException here is the snapshot's; the polls retry theirs
      if (!loaded.isDone()) {
        ImageSizeCheck s = sizing;
        sizing = null;
        loaded.completeExceptionally(
            e instanceof OutOfMemoryError oom && s != null ? s.outOfMemory(oom) : e);
      } else if (!stopped()) {
        died = true;
        LOG.error(
            "the tail loop stopped; clients are served from memory but receive no more changes", e);
        try {
          everyTable.say(
              "the server stopped reading changes on an unexpected error (" + e + "); restart it");
        } catch (RuntimeException | Error ignored) {
          // out of memory, or the hub is gone: /health says DOWN in any case
        }
      }
    } finally {
      loaded.completeExceptionally(new IllegalStateException("the tail loop was stopped"));
    }
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
        try {
          batch = source.poll(POLL_WAIT);
        } finally {
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
        if (everyTable.said()) { // after the batch that brought the mirrors up to date
          everyTable.say(null);
        }
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
        if (!everyTable.said()
            && System.currentTimeMillis() - lastSuccessMillis >= STALE_AFTER_MILLIS) {
          everyTable.failing(lastSuccessMillis, e.getMessage());
        }
        if (pause(backoff)) {
          return;
        }
        backoff = Math.min(source.longestRetryPause().toMillis(), backoff * 2);
      }
    }
  }

  /**
   * Since when (epoch millis) polls have been failing without a success in between; 0 = not
   * failing.
   */
  public long failingSinceMillis() {
    return failingSinceMillis;
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

  private void snapshot() throws SQLException {
    List<TableSchema> tables = source.tables();
    TailSink.SnapshotLoad load = sink.snapshotLoad(tables);
    ImageSizeCheck check = new ImageSizeCheck(heap, heapReservePercent, tables, load);
    sizing = check;
    IdentityHashMap<TableSchema, TableLoad> loads = new IdentityHashMap<>(); // no name per row
    long start = System.nanoTime();
    try (Progress progress = Progress.start("snapshot", "rows", -1, LOG);
        SnapshotLockWatch locks = SnapshotLockWatch.start(source, progress::done)) {
      loading = progress;
      source.snapshot(
          new ChangeSource.SnapshotSink() {
            private TableLoad current;

            @Override
            public void sizes(List<TableSize> sizes) {
              check.sizes(sizes);
            }

            @Override
            public void reading(TableSchema table) {
              locks.reading(table);
            }

            @Override
            @SuppressWarnings(
                "ReferenceEquality") // the source's own schema: rows come table by table
            public void row(TableSchema table, byte[] row) {
              TableLoad load = current;
              if (load == null || load.table != table) {
                long now = System.nanoTime(); // once a table, not once a row
                if (load != null) {
                  load.endingBy(now); // the rows come table by table
                }
                load = loads.get(table);
                if (load == null) {
                  load = new TableLoad(table, now);
                  loads.put(table, load);
                  progress.detail(
                      table.id().qualified()
                          + " ("
                          + loads.size()
                          + " of "
                          + tables.size()
                          + " tables)");
                }
                current = load;
              }
              load.rows++;
              progress.advance(1);
              check.row(table, row);
            }
          });
    }
    sizing = null;
    loading = null;
    long end = System.nanoTime();
    Map<String, TableLoad> byName = new HashMap<>();
    loads.values().forEach(l -> byName.put(l.table.id().qualified(), l.endingBy(end)));
    List<String> names = new ArrayList<>();
    for (TableSchema t : tables) {
      String name = t.id().qualified();
      names.add(name);
      TableLoad l = byName.getOrDefault(name, new TableLoad(t, start).endingBy(start));
      LOG.info(
          "snapshot of {} {} of {} in {} ms",
          l.rows,
          l.rows == 1 ? "row" : "rows",
          name,
          TimeUnit.NANOSECONDS.toMillis(l.last - l.first));
    }
    LOG.info(
        "initial snapshot of {} tables loaded in {} ms",
        tables.size(),
        TimeUnit.NANOSECONDS.toMillis(end - start));
    load.install();
    everyTable.tables(names);
  }

  /** One table's part of a snapshot: when its first row came, when it ended, how many rows. */
  private static final class TableLoad {
    final TableSchema table;
    final long first;

    /** When the next table's first row came (or the read ended): no clock read a row. */
    long last;

    boolean ended;

    long rows;

    TableLoad(TableSchema table, long first) {
      this.table = table;
      this.first = first;
    }

    /** This, ending at {@code end} unless it ended before (the next table's first row came). */
    TableLoad endingBy(long end) {
      if (!ended) {
        last = end;
        ended = true;
      }
      return this;
    }
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
