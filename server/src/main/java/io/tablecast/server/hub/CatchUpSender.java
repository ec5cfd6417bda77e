package io.tablecast.server.hub;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.log.RecentEvents;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;

/**
 * Writes the frames a session needs before its live stream — a snapshot ({@link SnapshotFrames}) or
 * a resume replay ({@link ResumeReplay}) — only while its channel is writable, so that a client
 * that reads slowly or not at all costs the server at most its write buffer, and never a thread:
 * the sender runs on the shared catch-up executor in short turns, stops when the channel turns
 * unwritable and is {@link #kick() kicked} again when it becomes writable (the session's
 * writability event) or when its last write has reached the socket.
 *
 * <p>Frames are encoded here, off the hub thread and the event loops. A turn writes at most {@link
 * #FRAMES_PER_TURN} frames and then yields the thread, so one fast reader of a large table does not
 * delay the snapshots of other sessions either.
 *
 * <p>Write order: the hub stops writing a session's batches when it sets {@link Subscriber#catchUp}
 * and holds them back; only then is the sender started. Its writes therefore come after every
 * earlier hub write in the event loop's FIFO task queue (the executor hand-off is a happens-before
 * edge), and the hub writes the held batches only after the sender has enqueued its last frame and
 * called back. Pings the hub writes meanwhile carry no position and sit between whole frames.
 */
final class CatchUpSender {

  private static final Logger LOG = RecentEvents.logger(CatchUpSender.class);

  /** Most frames written in one turn before the thread is yielded to other sessions. */
  static final int FRAMES_PER_TURN = 16;

  /** What to write: one message after the other. Called by one thread at a time. */
  interface Frames {
    /** The next message to write, or null when all have been written. */
    Message next();
  }

  private final Subscriber session;
  private final Channel channel;
  private final Frames frames;
  private final Executor executor;

  /** Called once with this sender and true when every frame was written, false when it stopped. */
  private final BiConsumer<CatchUpSender, Boolean> onDone;

  /** Kicks not yet answered by a turn; a turn runs only when it took the count from 0. */
  private final AtomicInteger kicks = new AtomicInteger();

  private volatile boolean cancelled;
  private final AtomicBoolean done = new AtomicBoolean();

  /** Executor-side state: the last write, and whether a listener waits for it. */
  private ChannelFuture lastWrite;

  private ChannelFuture awaited;

  /** Executor-side: every frame has been written to the channel; done once the last one left it. */
  private boolean allWritten;

  /** The hub's deadline for this catch-up; cancelled when it finishes. */
  private volatile ScheduledFuture<?> deadline;

  CatchUpSender(
      Subscriber session,
      Frames frames,
      Executor executor,
      BiConsumer<CatchUpSender, Boolean> onDone) {
    this.session = session;
    this.channel = session.channel();
    this.frames = frames;
    this.executor = executor;
    this.onDone = onDone;
  }

  /** Starts writing, or writes more if the channel may take it. Any thread; idempotent. */
  void kick() {
    if (!done.get() && kicks.getAndIncrement() == 0) {
      submit();
    }
  }

  /** Stops at the next frame; the callback then reports false. Any thread. */
  void cancel() {
    cancelled = true;
    kick();
  }

  /** Sets the deadline to cancel once finished (so it does not keep the frames reachable). */
  void deadline(ScheduledFuture<?> deadline) {
    this.deadline = deadline;
    if (done.get()) {
      deadline.cancel(false);
    }
  }

  /** Whether every frame was written or the sender stopped. */
  boolean finished() {
    return done.get();
  }

  private void submit() {
    try {
      executor.execute(this::turn);
    } catch (RejectedExecutionException e) {
      finish(false); // the hub is closing
    }
  }

  /** One turn: writes while writable, then waits, yields, or finishes. */
  private void turn() {
    int seen = kicks.get();
    Outcome outcome;
    try {
      outcome = write();
    } catch (RuntimeException e) {
      LOG.error("writing the snapshot or replay of {} failed", session, e);
      Subscriber.closeWithError(
          channel,
          Message.Error.fatal(
              ErrorCode.INTERNAL,
              "the server failed to write the snapshot or resume replay: " + e.getMessage()));
      outcome = Outcome.FAILED;
    }
    switch (outcome) {
      case DONE -> finish(true);
      case FAILED -> finish(false);
      case YIELD -> submit(); // still ours: kicks stays above 0
      case WAIT -> {
        if (kicks.addAndGet(-seen) != 0) {
          submit(); // kicked during the turn: look again
        }
      }
    }
  }

  private enum Outcome {
    DONE,
    FAILED,
    YIELD,
    WAIT
  }

  private Outcome write() {
    for (int written = 0; ; written++) {
      if (cancelled || !channel.isActive()) {
        return Outcome.FAILED;
      }
      if (allWritten) {
        return flushed();
      }
      if (!channel.isWritable()) {
        awaitDrain();
        return Outcome.WAIT;
      }
      if (written == FRAMES_PER_TURN) {
        return Outcome.YIELD;
      }
      Message m = frames.next();
      if (m == null) {
        allWritten = true;
        return flushed();
      }
      lastWrite = channel.writeAndFlush(session.frame(m));
      session.catchUpWriteNanos = System.nanoTime();
    }
  }

  /**
   * Done once the last frame has left for the socket, so that what is written after the catch-up
   * (held batches, heartbeats) meets a queue without it: the slow-consumer limit counts what waits
   * behind a catch-up, never the catch-up itself (a single row of 200 MB is one frame).
   */
  private Outcome flushed() {
    ChannelFuture f = lastWrite;
    if (f == null || f.isDone()) {
      return Outcome.DONE;
    }
    if (f != awaited) {
      awaited = f;
      f.addListener(x -> kick());
    }
    return Outcome.WAIT;
  }

  /**
   * Kicks again once the last frame has reached the socket (whichever comes first of that and the
   * writability event). A last write already done means other bytes fill the buffer: then only the
   * writability event kicks, so the sender never spins.
   */
  private void awaitDrain() {
    ChannelFuture f = lastWrite;
    if (f != null && f != awaited && !f.isDone()) {
      awaited = f;
      f.addListener(x -> kick());
    }
  }

  private void finish(boolean ok) {
    if (done.compareAndSet(false, true)) {
      ScheduledFuture<?> d = deadline;
      if (d != null) {
        d.cancel(false);
      }
      if (frames instanceof AutoCloseable c) {
        try {
          c.close(); // what the frames read from (a stream replay's consumer)
        } catch (Exception e) {
          LOG.warn("closing the catch-up of {} failed", session, e);
        }
      }
      onDone.accept(this, ok);
    }
  }
}
