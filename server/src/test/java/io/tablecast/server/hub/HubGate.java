package io.tablecast.server.hub;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Holds a hub's thread still except while a test waits for it ({@link #letRun}), so that what the
 * hub writes to an {@code EmbeddedChannel} never runs beside the test's own use of that channel.
 * Netty's embedded event loop answers {@code inEventLoop()} with true on every thread: a write from
 * the hub thread goes straight into the channel's pipeline and queues, which only one thread may
 * touch at a time (with real event loops, Netty hands such a write to the channel's own thread). A
 * write racing the test's close was once left in no queue and reported as a leaked buffer.
 */
public final class HubGate implements AutoCloseable {

  private final Executor hubThread;
  private Semaphore gate;
  private volatile boolean open;

  private HubGate(Executor hubThread) {
    this.hubThread = hubThread;
    shutBehindQueuedTasks();
  }

  /** Shuts {@code hub}'s thread behind what was handed to it so far. */
  public static HubGate shut(ChangeHub hub) {
    return new HubGate(hub.hubThreadForTests());
  }

  /**
   * Lets the hub run every task handed to it before this call and waits, at most 60 s, until it
   * has; the hub is shut again behind them.
   */
  public void letRun() {
    Semaphore passing = gate;
    CountDownLatch reached = shutBehindQueuedTasks();
    passing.release();
    try {
      if (!reached.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("the hub did not run its tasks within 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while the hub ran its tasks", e);
    }
  }

  private CountDownLatch shutBehindQueuedTasks() {
    Semaphore next = new Semaphore(0);
    CountDownLatch reached = new CountDownLatch(1);
    gate = next;
    hubThread.execute(
        () -> {
          reached.countDown();
          if (!open) {
            try {
              next.acquire();
            } catch (InterruptedException e) { // the hub is closing
              Thread.currentThread().interrupt();
            }
          }
        });
    return reached;
  }

  /** Lets the hub run freely from now on (before the hub is closed). */
  @Override
  public void close() {
    open = true;
    gate.release();
  }
}
