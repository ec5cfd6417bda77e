package io.tablecast.client;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change and batch listeners of one mirror. Registered from any thread; told on the client's
 * listener thread ({@link ListenerDispatcher}), each batch first to the change listeners (change
 * after change) and then, whole, to the batch listeners. A listener that throws is logged and
 * skipped.
 *
 * @param <V> the row type
 */
final class MirrorListeners<V> {
  private static final Logger log = LoggerFactory.getLogger(MirrorListeners.class);

  private final List<ChangeListener<V>> changeListeners = new CopyOnWriteArrayList<>();
  private final List<BatchListener<V>> batchListeners = new CopyOnWriteArrayList<>();

  Subscription addChangeListener(ChangeListener<V> listener) {
    Objects.requireNonNull(listener, "listener");
    changeListeners.add(listener);
    return () -> changeListeners.remove(listener);
  }

  Subscription addBatchListener(BatchListener<V> listener) {
    Objects.requireNonNull(listener, "listener");
    batchListeners.add(listener);
    return () -> batchListeners.remove(listener);
  }

  /** True when no listener would hear a batch: its events need not be made. */
  boolean isEmpty() {
    return changeListeners.isEmpty() && batchListeners.isEmpty();
  }

  /** True when a listener would hear a batch. */
  boolean isPresent() {
    return !isEmpty();
  }

  /** Tells every listener registered now of one batch's events. Listener thread. */
  void deliver(List<ChangeEvent<V>> events) {
    for (ChangeEvent<V> e : events) {
      for (ChangeListener<V> l : changeListeners) {
        try {
          l.onChange(e);
        } catch (RuntimeException | Error ex) {
          rethrowFatal(ex);
          log.warn("listener {} failed on {} {} key {}", l, e.op(), e.table(), e.key(), ex);
        }
      }
    }
    if (batchListeners.isEmpty()) {
      return;
    }
    List<ChangeEvent<V>> batch = Collections.unmodifiableList(events);
    for (BatchListener<V> l : batchListeners) {
      try {
        l.onBatch(batch);
      } catch (RuntimeException | Error ex) {
        rethrowFatal(ex);
        log.warn(
            "batch listener {} failed on {} changes of {}",
            l,
            batch.size(),
            batch.get(0).table(),
            ex);
      }
    }
  }

  private static void rethrowFatal(Throwable ex) {
    if (ex instanceof VirtualMachineError fatal) {
      throw fatal;
    }
  }
}
