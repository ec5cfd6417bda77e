package io.tablecast.client;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs user listeners on one dedicated thread per client, in the order batches were applied. A
 * throwing listener is logged and skipped.
 */
final class ListenerDispatcher {
  private static final Logger log = LoggerFactory.getLogger(ListenerDispatcher.class);

  private final ExecutorService executor;
  private final String clientName;

  ListenerDispatcher(String clientName) {
    this.clientName = clientName;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-listeners-" + clientName);
              t.setDaemon(true);
              return t;
            });
  }

  /** The name of the client whose listeners run here. */
  String clientName() {
    return clientName;
  }

  <V> void dispatch(List<ChangeEvent<V>> events, MirrorListeners<V> listeners) {
    if (events.isEmpty() || listeners.isEmpty()) {
      return;
    }
    try {
      executor.execute(() -> listeners.deliver(events));
    } catch (RejectedExecutionException e) {
      log.debug("client closed; dropped {} change events", events.size());
    }
  }

  /**
   * Runs {@code task} on the listener thread, after the events queued before it; a failure is
   * logged.
   */
  void run(String what, Runnable task) {
    try {
      executor.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException | Error ex) {
              if (ex instanceof VirtualMachineError fatal) {
                throw fatal;
              }
              log.warn("{} failed", what, ex);
            }
          });
    } catch (RejectedExecutionException e) {
      log.debug("client closed; dropped {}", what);
    }
  }

  /**
   * Stops taking tasks; queued ones still run. No wait: close() may run on the listener thread
   * itself.
   *
   * @return false when it was closed already
   */
  boolean close() {
    if (executor.isShutdown()) {
      return false;
    }
    executor.shutdown();
    return true;
  }
}
