package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.ReadBarrier;
import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Answers the clients' {@code sync} requests (read-your-writes): each asks the tail's {@link
 * ReadBarrier} for a read of the outbox that begins after it, and once that read's batch has been
 * applied and sent, a {@code synced} follows it on the session. Written like any other message, the
 * answer waits behind a snapshot, resume replay or large batch being written ({@link
 * Subscriber#send}); changes coalesced for a slow reader are sent before it. Hub thread, except
 * where said.
 */
final class SyncAnswers {

  /** Requests one session may have open at once; more are answered with a failure. */
  static final int MAX_OPEN_PER_SESSION = 64;

  static final String NO_DATABASE =
      "this server has no source of changes to answer sync from (it is still starting)";

  private final Executor hub;
  private final SlowConsumerPolicy slow;
  private final LongSupplier position;
  private final ServerMetrics metrics;

  /** The tail's barrier; null while none is known (a hub without a database, tests). */
  private volatile ReadBarrier barrier;

  /**
   * For a hub fed from a NATS stream: asks the capture leader for a stream sequence that holds
   * every change committed before the call; null otherwise.
   */
  private volatile Supplier<CompletableFuture<Long>> streamSequence;

  /** The last stream sequence the hub has taken (hub thread). */
  private long streamRead;

  /** Requests waiting for the hub to read the stream as far as their sequence (hub thread). */
  private final PriorityQueue<Waiting> waiting =
      new PriorityQueue<>(Comparator.comparingLong(Waiting::sequence));

  private record Waiting(long sequence, Subscriber session, long id, long asked) {}

  SyncAnswers(Executor hub, SlowConsumerPolicy slow, LongSupplier position, ServerMetrics metrics) {
    this.metrics = metrics;
    this.hub = hub;
    this.slow = slow;
    this.position = position;
  }

  /** Answers requests through {@code barrier} from now on. Any thread. */
  void readThrough(ReadBarrier barrier) {
    this.barrier = barrier;
  }

  /**
   * Answers requests with a stream sequence from {@code streamSequence} once the hub has read the
   * stream that far ({@link #streamRead}). Any thread.
   */
  void readFromStream(Supplier<CompletableFuture<Long>> streamSequence) {
    this.streamSequence = streamSequence;
  }

  /**
   * The hub took the stream's message at {@code sequence}: requests waiting for it are answered.
   */
  void streamRead(long sequence) {
    streamRead = sequence;
    while (!waiting.isEmpty() && waiting.peek().sequence() <= sequence) {
      Waiting w = waiting.poll();
      answer(w.session(), w.id(), w.asked());
    }
  }

  /** Handles a request of {@code s}. */
  @SuppressWarnings("FutureReturnValueIgnored") // the answer is the reaction; it cannot fail
  void request(Subscriber s, long id) {
    long asked = System.nanoTime();
    ReadBarrier b = barrier;
    Supplier<CompletableFuture<Long>> stream = streamSequence;
    if (b == null && stream == null) {
      s.sendMessage(new Message.Synced(id, -1, NO_DATABASE));
      answered("no_database", asked);
      return;
    }
    if (s.openSyncs >= MAX_OPEN_PER_SESSION) {
      s.sendMessage(
          new Message.Synced(
              id,
              -1,
              "this session has "
                  + MAX_OPEN_PER_SESSION
                  + " sync requests open, the most the server keeps for one connection"));
      answered("too_many", asked);
      return;
    }
    s.openSyncs++;
    if (b != null) {
      // completed on the tail thread once the covering read is applied and sent: answer on the
      // hub thread, behind that batch
      b.request().thenRun(() -> onHub(() -> answer(s, id, asked)));
      return;
    }
    CompletableFuture<Long> asking;
    try {
      asking = stream.get();
    } catch (RuntimeException e) { // e.g. the NATS connection closed
      refuse(s, id, asked, e);
      return;
    }
    asking.whenComplete(
        (sequence, failure) ->
            onHub(
                () -> {
                  if (failure != null) {
                    refuse(s, id, asked, failure);
                  } else if (sequence <= streamRead) {
                    answer(s, id, asked);
                  } else {
                    waiting.add(new Waiting(sequence, s, id, asked));
                  }
                }));
  }

  /** The capture leader did not answer: the client's sync fails with the reason. */
  private void refuse(Subscriber s, long id, long asked, Throwable failure) {
    s.openSyncs--;
    if (!s.closed) {
      Throwable why = failure.getCause() != null ? failure.getCause() : failure;
      s.sendMessage(new Message.Synced(id, -1, why.getMessage()));
    }
    answered("no_capture", asked);
  }

  private void answer(Subscriber s, long id, long asked) {
    s.openSyncs--;
    if (s.closed) {
      return;
    }
    if (!s.catchingUp()) {
      slow.flush(s); // what was coalesced for it goes first
    }
    s.sendMessage(new Message.Synced(id, position.getAsLong(), null));
    answered("answered", asked);
  }

  /** Times a request {@code asked} at (nanoTime) answered now with {@code outcome}. */
  private void answered(String outcome, long asked) {
    metrics.syncAnswered(outcome, Duration.ofNanos(System.nanoTime() - asked));
  }

  private void onHub(Runnable task) {
    try {
      hub.execute(task);
    } catch (RejectedExecutionException e) {
      // the hub closed: its sessions are gone
    }
  }
}
