package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and ends what a session is sent at its own pace, ahead of the rest of its stream: a
 * snapshot, a resume replay or a batch too large for one frame ({@link BatchParts}), each written
 * by a {@link CatchUpSender} with the {@code slow_consumer.snapshot_timeout} deadline. Meanwhile
 * the session's later batches are held back in {@link Subscriber#held}; when one ends, the held
 * batches are sent in order, and a held large batch starts the next catch-up (the batches after it
 * stay held). Hub thread only.
 */
final class CatchUps {

  private static final Logger LOG = LoggerFactory.getLogger(CatchUps.class);

  private final Executor executor;
  private final ScheduledExecutorService hub;
  private final Duration snapshotTimeout;

  /** Called when a session has nothing more to catch up: it handles the subscribes that waited. */
  private Consumer<Subscriber> idle = s -> {};

  CatchUps(Executor executor, ScheduledExecutorService hub, Duration snapshotTimeout) {
    this.executor = executor;
    this.hub = hub;
    this.snapshotTimeout = snapshotTimeout;
  }

  /** What to do with a session whose catch-ups and held batches are all written. */
  void onIdle(Consumer<Subscriber> idle) {
    this.idle = idle;
  }

  /**
   * Writes a large batch now, or after what the session is already catching up with (it keeps its
   * place among the held batches).
   */
  void largeBatch(Subscriber s, BatchParts parts) {
    if (s.closed) {
      return;
    }
    if (s.catchingUp()) {
      s.held.add(parts);
    } else {
      start(s, parts);
    }
  }

  /** Starts writing {@code frames} ahead of the session's live stream. */
  void start(Subscriber s, CatchUpSender.Frames frames) {
    CatchUpSender sender =
        new CatchUpSender(s, frames, executor, (self, ok) -> runOnHub(() -> done(s, self, ok)));
    s.catchUp = sender;
    long timeoutMillis = snapshotTimeout.toMillis();
    ScheduledFuture<?> deadline =
        hub.schedule(
            () -> {
              if (s.catchUp == sender && !sender.finished()) {
                s.slowConsumer(
                    "its "
                        + what(frames)
                        + " was not read within slow_consumer.snapshot_timeout ("
                        + timeoutMillis
                        + " ms)");
              }
            },
            timeoutMillis,
            TimeUnit.MILLISECONDS);
    sender.deadline(deadline);
    sender.kick();
  }

  private static String what(CatchUpSender.Frames frames) {
    if (frames instanceof ResumeReplay || frames instanceof StreamResume) {
      return "resume replay";
    }
    if (frames instanceof BatchParts p) {
      return "large batch (position " + p.position() + ")";
    }
    return "snapshot";
  }

  /**
   * A catch-up ended: send the held batches up to the next large one, else let the session go idle.
   */
  private void done(Subscriber s, CatchUpSender sender, boolean delivered) {
    if (s.catchUp != sender) {
      return; // the session was discarded meanwhile
    }
    s.catchUp = null;
    if (!delivered || s.closed) {
      s.discard();
      return;
    }
    while (!s.held.isEmpty() && !s.closed) {
      Object next = s.held.poll();
      if (next instanceof BatchParts parts) {
        start(s, parts); // the batches behind it stay held
        return;
      }
      ByteBuf b = (ByteBuf) next;
      s.heldBytes -= b.readableBytes();
      s.send(b); // releases it once the session is closed
    }
    idle.accept(s);
  }

  private void runOnHub(Runnable task) {
    try {
      hub.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.debug("hub closed, dropping a task");
    }
  }
}
