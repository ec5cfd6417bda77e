package io.tablecast.server.tail;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Read-your-writes for the tail: {@link #request()} completes once a read of the outbox that began
 * after the request has been handed to the sink. Such a read returns every change committed before
 * it began (PostgreSQL: every transaction visible in its snapshot; MySQL: every row above the last
 * id and in the open gaps), so the request's writer, who committed before asking, finds its change
 * applied to the images and sent on its way.
 *
 * <p>The source numbers its reads: {@link #beforeRead()} just before each, which covers the
 * requests made until then; {@link #delivered()} after the sink took the batch of the last
 * successful read completes them. A request wakes a tail that waits between empty reads ({@link
 * #await}), so that it reads at once instead of after its idle back-off.
 */
public final class ReadBarrier {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition requested = lock.newCondition();

  /** Requests not completed yet, in the order made, each with its number; guarded by lock. */
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /** Requests made so far; guarded by lock. */
  private long made;

  /** Requests covered by the last read that began (tail thread). */
  private long coveredByLastRead;

  private record Pending(long number, CompletableFuture<Void> done) {}

  /**
   * A future completed once every change committed before this call has been handed to the sink.
   * Any thread.
   */
  public CompletableFuture<Void> request() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    lock.lock();
    try {
      pending.add(new Pending(++made, done));
      requested.signalAll();
    } finally {
      lock.unlock();
    }
    return done;
  }

  /** Requests not answered yet (tests). Any thread. */
  int waiting() {
    lock.lock();
    try {
      return pending.size();
    } finally {
      lock.unlock();
    }
  }

  /** A read of the outbox is about to begin: it covers every request made so far. Tail thread. */
  void beforeRead() {
    lock.lock();
    try {
      coveredByLastRead = made;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether the last read covers requests not completed yet: the source then returns its batch,
   * even an empty one, instead of waiting for more. Tail thread.
   */
  boolean lastReadAnswers() {
    lock.lock();
    try {
      Pending first = pending.peek();
      return first != null && first.number() <= coveredByLastRead;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits up to {@code nanos} between two reads, returning early when a request arrives that the
   * last read does not cover. Tail thread.
   */
  void await(long nanos) throws InterruptedException {
    long left = nanos;
    lock.lock();
    try {
      while (left > 0 && made == coveredByLastRead) {
        left = requested.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The batch of the last successful read was handed to the sink: completes the requests it covers.
   * Tail thread.
   */
  void delivered() {
    ArrayDeque<Pending> done = new ArrayDeque<>();
    lock.lock();
    try {
      while (!pending.isEmpty() && pending.peek().number() <= coveredByLastRead) {
        done.add(pending.poll());
      }
    } finally {
      lock.unlock();
    }
    done.forEach(p -> p.done().complete(null)); // outside the lock: the callers' reactions run here
  }
}
