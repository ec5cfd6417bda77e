package io.tablecast.server.hub;

import io.tablecast.server.log.RecentEvents;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The hub's one thread ({@code tablecast-hub}), on which the {@link ChangeHub} keeps its images,
 * position, resume buffer and sessions: hands a task to it and, for callers on other threads, waits
 * for the answer. After {@link #shutdownNow()} tasks are dropped.
 */
final class HubThread {

  /** Logs under {@link ChangeHub}, as before this was split out of it. */
  private static final Logger LOG = RecentEvents.logger(ChangeHub.class);

  private final ScheduledThreadPoolExecutor hub;

  HubThread() {
    this.hub = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "tablecast-hub"));
    hub.setRemoveOnCancelPolicy(
        true); // cancelled catch-up deadlines do not keep their sessions reachable
  }

  /** A daemon thread named {@code name} running {@code r}. */
  static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** The hub thread as an executor, for the parts that schedule their own work on it. */
  ScheduledExecutorService executor() {
    return hub;
  }

  /** Runs a task on the hub thread; after {@link #shutdownNow()} the task is dropped. */
  void execute(Runnable task) {
    try {
      hub.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.debug("hub closed, dropping a task");
    }
  }

  /** Runs a query on the hub thread and waits for it, at most 60 s. */
  <T> T call(Supplier<T> task) {
    return run(task, true);
  }

  /**
   * Runs the tail's work on the hub thread and waits for it however long it takes: a huge
   * transaction may take longer than any fixed bound, and giving up would leave the batch applied
   * later while the tail loop stopped. Interrupted when the server closes.
   */
  <T> T await(Supplier<T> task) {
    return run(task, false);
  }

  private <T> T run(Supplier<T> task, boolean bounded) {
    CompletableFuture<T> f = CompletableFuture.supplyAsync(task, hub);
    try {
      return bounded ? f.get(60, TimeUnit.SECONDS) : f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the hub", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException unchecked) {
        throw unchecked;
      }
      throw new IllegalStateException(c);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the hub did not answer within 60 s", e);
    }
  }

  /** Stops the thread, interrupting the task it runs. */
  void shutdownNow() {
    hub.shutdownNow();
  }
}
