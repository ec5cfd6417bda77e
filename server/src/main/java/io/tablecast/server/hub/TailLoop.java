package io.tablecast.server.hub;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that reads the database: the source's snapshot once (into the hub's images), then
 * {@link ChangeSource#poll} forever. Database errors, and any other exception of a poll, are
 * logged and retried with capped exponential backoff; the source keeps its position, and the hub
 * keeps serving its images. Only an {@link Error} (out of memory) ends the loop. A poll that keeps
 * failing shows in {@code /health} (see {@link #failingSinceMillis()}), never as a loop that is
 * gone for good while the database is fine.
 */
public final class TailLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TailLoop.class);

  /** Longest wait of one poll; also bounds how long {@link #close()} waits for the loop. */
  static final Duration POLL_WAIT = Duration.ofMillis(250);
  static final long FIRST_BACKOFF_MILLIS = 100;
  static final long MAX_BACKOFF_MILLIS = 10_000;

  private final ChangeSource source;
  private final ChangeHub hub;
  private final Thread thread;
  private final CompletableFuture<Void> loaded = new CompletableFuture<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  /** Wall-clock millis of the first failure of the current run of failing polls; 0 = healthy. */
  private volatile long failingSinceMillis;
  /** The loop ended on an unexpected exception: no more changes will be read. */
  private volatile boolean died;
  /** Changes (row events) returned by the last successful poll. */
  private volatile int lastPollChanges;
  /** Wall-clock millis of the last poll that found nothing more to read (the loop was caught up). */
  private volatile long caughtUpMillis = System.currentTimeMillis();

  public TailLoop(ChangeSource source, ChangeHub hub) {
    this.source = source;
    this.hub = hub;
    this.thread = new Thread(this::run, "tablecast-tail");
    this.thread.setDaemon(true);
  }

  /**
   * Starts the thread and waits until the initial snapshot is in the hub.
   *
   * @throws IllegalStateException when the snapshot failed with anything but a database error
   */
  public void startAndAwaitSnapshot() throws InterruptedException {
    thread.start();
    try {
      loaded.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("initial snapshot failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  private void run() {
    long backoff = FIRST_BACKOFF_MILLIS;
    try {
      while (!loaded.isDone() && !stopped()) {
        try {
          snapshot();
          loaded.complete(null);
        } catch (SQLException e) {
          LOG.warn("initial snapshot failed, retrying in {} ms: {}", backoff, e.toString());
          if (pause(backoff)) {
            return;
          }
          backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
      }
      backoff = FIRST_BACKOFF_MILLIS;
      while (!stopped()) {
        try {
          CommittedBatch batch = source.poll(POLL_WAIT);
          lastPollChanges = batch.events().size();
          if (!batch.isEmpty()) {
            hub.publish(batch);
          } else {
            caughtUpMillis = System.currentTimeMillis();
          }
          failingSinceMillis = 0;
          backoff = FIRST_BACKOFF_MILLIS;
        } catch (SQLException | RuntimeException e) {
          if (stopped()) {
            return; // closing: the hub was shut down under the poll
          }
          boolean first = failingSinceMillis == 0;
          if (first) {
            failingSinceMillis = System.currentTimeMillis();
          }
          if (e instanceof SQLException) {
            LOG.warn("reading changes failed (clients keep being served from memory), retrying in {} ms: {}",
                backoff, e.toString());
          } else if (first) { // not a database error: a bug or data the server cannot handle; the trace once
            LOG.error("reading changes failed on an unexpected error (clients keep being served from memory), "
                + "retrying in {} ms", backoff, e);
          } else {
            LOG.error("reading changes failed again, retrying in {} ms: {}", backoff, e.toString());
          }
          if (pause(backoff)) {
            return;
          }
          backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) { // a RuntimeException here is the snapshot's; the polls retry theirs
      if (!loaded.isDone()) {
        loaded.completeExceptionally(e);
      } else if (!stopped()) {
        died = true;
        LOG.error("the tail loop stopped; clients are served from memory but receive no more changes", e);
      }
    } finally {
      loaded.completeExceptionally(new IllegalStateException("the tail loop was stopped"));
    }
  }

  /** Since when (epoch millis) polls have been failing without a success in between; 0 = not failing. */
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

  /** Epoch millis of the last poll that came back empty, i.e. when the loop was last caught up. */
  public long caughtUpMillis() {
    return caughtUpMillis;
  }

  private void snapshot() throws SQLException {
    Map<String, TableImage> images = new LinkedHashMap<>();
    for (TableSchema t : source.tables()) {
      images.put(t.id().qualified(), new TableImage(t));
    }
    Map<String, Long> started = new LinkedHashMap<>();
    Map<String, Long> finished = new LinkedHashMap<>();
    long start = System.nanoTime();
    source.snapshot((table, row) -> {
      String name = table.id().qualified();
      long now = System.nanoTime();
      started.putIfAbsent(name, now);
      finished.put(name, now);
      images.get(name).put(row);
    });
    long end = System.nanoTime();
    for (TableImage image : images.values()) {
      long from = started.getOrDefault(image.name(), start);
      long to = finished.getOrDefault(image.name(), from);
      LOG.info("snapshot of {} rows of {} in {} ms", image.size(), image.name(),
          TimeUnit.NANOSECONDS.toMillis(to - from));
    }
    LOG.info("initial snapshot of {} tables loaded in {} ms", images.size(),
        TimeUnit.NANOSECONDS.toMillis(end - start));
    hub.install(new ArrayList<>(images.values()));
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
